CMakeFiles/kvb.dir/src/core/quote.c.o: /work/wt-pcheck/src/core/quote.c \
 /usr/include/stdc-predef.h /work/wt-pcheck/src/core/quote.h \
 /work/wt-pcheck/src/core/buf.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h
