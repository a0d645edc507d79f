file(REMOVE_RECURSE
  "CMakeFiles/test_pyjson.dir/unit/test_pyjson.c.o"
  "CMakeFiles/test_pyjson.dir/unit/test_pyjson.c.o.d"
  "test_pyjson"
  "test_pyjson.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_pyjson.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
