file(REMOVE_RECURSE
  "libkvb_sim_net.a"
)
