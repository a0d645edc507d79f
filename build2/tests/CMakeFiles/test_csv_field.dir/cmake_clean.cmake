file(REMOVE_RECURSE
  "CMakeFiles/test_csv_field.dir/unit/test_csv_field.c.o"
  "CMakeFiles/test_csv_field.dir/unit/test_csv_field.c.o.d"
  "test_csv_field"
  "test_csv_field.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_csv_field.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
