file(REMOVE_RECURSE
  "CMakeFiles/kvb_commit"
  "commit_embed.c"
)

# Per-language clean rules from dependency scanning.
foreach(lang )
  include(CMakeFiles/kvb_commit.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
