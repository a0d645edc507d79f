file(REMOVE_RECURSE
  "CMakeFiles/kvb_sshd_fixture.dir/integration/sshd_fixture.c.o"
  "CMakeFiles/kvb_sshd_fixture.dir/integration/sshd_fixture.c.o.d"
  "libkvb_sshd_fixture.a"
  "libkvb_sshd_fixture.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/kvb_sshd_fixture.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
