/* main() for a test file: runs every T(name) in TESTS, or those named on the command line. */
#include <stdio.h>
#include <string.h>

int kvb_test_failures;

#define T(name) static void name(void);
TESTS
#undef T

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;
	struct { const char *name; void (*fn)(void); } all[] = {
#define T(name) { #name, name },
		TESTS
#undef T
	};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		int before = kvb_test_failures, selected = argc < 2;
		for (int a = 1; a < argc; a++)
			selected |= !strcmp(argv[a], all[i].name);
		if (!selected)
			continue;
		all[i].fn();
		if (kvb_test_failures > before) {
			failed++;
			fprintf(stderr, "FAIL %s\n", all[i].name);
		} else {
			passed++;
			fprintf(stderr, "ok   %s\n", all[i].name);
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
