file(REMOVE_RECURSE
  "CMakeFiles/test_shortlabel.dir/unit/test_shortlabel.c.o"
  "CMakeFiles/test_shortlabel.dir/unit/test_shortlabel.c.o.d"
  "test_shortlabel"
  "test_shortlabel.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_shortlabel.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
