file(REMOVE_RECURSE
  "CMakeFiles/test_ssh.dir/integration/test_ssh.c.o"
  "CMakeFiles/test_ssh.dir/integration/test_ssh.c.o.d"
  "test_ssh"
  "test_ssh.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_ssh.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
