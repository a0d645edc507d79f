file(REMOVE_RECURSE
  "CMakeFiles/trace_cmd_sim.dir/trace_cmd_sim.c.o"
  "CMakeFiles/trace_cmd_sim.dir/trace_cmd_sim.c.o.d"
  "trace_cmd_sim"
  "trace_cmd_sim.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/trace_cmd_sim.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
