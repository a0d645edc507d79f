file(REMOVE_RECURSE
  "CMakeFiles/test_verdict_text.dir/unit/test_verdict_text.c.o"
  "CMakeFiles/test_verdict_text.dir/unit/test_verdict_text.c.o.d"
  "test_verdict_text"
  "test_verdict_text.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_verdict_text.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
