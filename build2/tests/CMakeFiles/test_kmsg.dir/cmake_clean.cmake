file(REMOVE_RECURSE
  "CMakeFiles/test_kmsg.dir/unit/test_kmsg.c.o"
  "CMakeFiles/test_kmsg.dir/unit/test_kmsg.c.o.d"
  "test_kmsg"
  "test_kmsg.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_kmsg.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
