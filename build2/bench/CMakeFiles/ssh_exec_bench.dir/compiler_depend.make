# Empty compiler generated dependencies file for ssh_exec_bench.
# This may be replaced when dependencies are built.
