file(REMOVE_RECURSE
  "CMakeFiles/test_wa3_import.dir/unit/test_wa3_import.c.o"
  "CMakeFiles/test_wa3_import.dir/unit/test_wa3_import.c.o.d"
  "test_wa3_import"
  "test_wa3_import.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_wa3_import.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
