# CMake generated Testfile for 
# Source directory: /work/wt-pcheck
# Build directory: /work/wt-pcheck/build2
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
subdirs("tests")
subdirs("bench")
