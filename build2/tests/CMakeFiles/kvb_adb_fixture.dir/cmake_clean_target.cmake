file(REMOVE_RECURSE
  "libkvb_adb_fixture.a"
)
