CMakeFiles/kvb.dir/assets_embed.c.o: \
 /work/wt-pcheck/build2/assets_embed.c /usr/include/stdc-predef.h
