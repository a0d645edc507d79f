file(REMOVE_RECURSE
  "CMakeFiles/ssh_exec_bench.dir/ssh_exec_bench.c.o"
  "CMakeFiles/ssh_exec_bench.dir/ssh_exec_bench.c.o.d"
  "ssh_exec_bench"
  "ssh_exec_bench.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/ssh_exec_bench.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
