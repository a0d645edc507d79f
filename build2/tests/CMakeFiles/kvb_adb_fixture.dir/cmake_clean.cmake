file(REMOVE_RECURSE
  "CMakeFiles/kvb_adb_fixture.dir/integration/adb_fixture.c.o"
  "CMakeFiles/kvb_adb_fixture.dir/integration/adb_fixture.c.o.d"
  "libkvb_adb_fixture.a"
  "libkvb_adb_fixture.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/kvb_adb_fixture.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
