file(REMOVE_RECURSE
  "CMakeFiles/test_qemu.dir/integration/test_qemu.c.o"
  "CMakeFiles/test_qemu.dir/integration/test_qemu.c.o.d"
  "test_qemu"
  "test_qemu.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_qemu.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
