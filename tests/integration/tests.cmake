# Integration tests (real tools, services, kernels). Included by tests/CMakeLists.txt.

# Boots Debian kernels on the qemu-x86_64 board (label qemu): builds the board on
# first use (about 30 s), then about 10 s per boot under TCG.
kvb_test(test_qemu ${CMAKE_CURRENT_SOURCE_DIR}/integration/test_qemu.c qemu 600)
