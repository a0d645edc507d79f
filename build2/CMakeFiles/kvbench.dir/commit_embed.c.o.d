CMakeFiles/kvbench.dir/commit_embed.c.o: \
 /work/wt-pcheck/build2/commit_embed.c /usr/include/stdc-predef.h
