file(REMOVE_RECURSE
  "CMakeFiles/test_agenda.dir/unit/test_agenda.c.o"
  "CMakeFiles/test_agenda.dir/unit/test_agenda.c.o.d"
  "test_agenda"
  "test_agenda.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_agenda.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
