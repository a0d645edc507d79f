file(REMOVE_RECURSE
  "libkvb_sshd_fixture.a"
)
