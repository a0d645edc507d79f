CMakeFiles/kvb.dir/schema_embed.c.o: \
 /work/wt-pcheck/build2/schema_embed.c /usr/include/stdc-predef.h \
 /work/wt-pcheck/src/store/schema.h
