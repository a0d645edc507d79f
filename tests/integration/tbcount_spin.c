/*
 * The program tests/integration/test_tbcount.c runs under qemu-x86_64 with kvbench's counting
 * plugin: waits for a byte on stdin, runs spin(N) (a loop of exactly two instructions an
 * iteration), says "spun", waits for a second byte, exits. Static, so its `nm` is every function.
 */
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) void spin(unsigned long n)
{
	__asm__ volatile("1: dec %0; jnz 1b" : "+r"(n));
}

int main(int argc, char **argv)
{
	char c;
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000000;
	if (read(0, &c, 1) != 1)
		return 1;
	spin(n);
	if (write(1, "spun\n", 5) != 5 || read(0, &c, 1) != 1)
		return 1;
	return 0;
}
