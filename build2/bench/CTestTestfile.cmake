# CMake generated Testfile for 
# Source directory: /work/wt-pcheck/bench
# Build directory: /work/wt-pcheck/build2/bench
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
