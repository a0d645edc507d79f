file(REMOVE_RECURSE
  "CMakeFiles/test_wa3_agenda.dir/unit/test_wa3_agenda.c.o"
  "CMakeFiles/test_wa3_agenda.dir/unit/test_wa3_agenda.c.o.d"
  "test_wa3_agenda"
  "test_wa3_agenda.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_wa3_agenda.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
