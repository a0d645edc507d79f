file(REMOVE_RECURSE
  "CMakeFiles/test_trace_lost.dir/unit/test_trace_lost.c.o"
  "CMakeFiles/test_trace_lost.dir/unit/test_trace_lost.c.o.d"
  "test_trace_lost"
  "test_trace_lost.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_trace_lost.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
