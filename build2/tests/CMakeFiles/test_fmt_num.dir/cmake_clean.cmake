file(REMOVE_RECURSE
  "CMakeFiles/test_fmt_num.dir/unit/test_fmt_num.c.o"
  "CMakeFiles/test_fmt_num.dir/unit/test_fmt_num.c.o.d"
  "test_fmt_num"
  "test_fmt_num.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_fmt_num.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
