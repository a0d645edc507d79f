file(REMOVE_RECURSE
  "libkvb.a"
)
