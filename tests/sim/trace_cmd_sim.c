/*
 * trace_cmd_sim: `trace-cmd record` at the boundary kvbench drives it through (the ftrace
 * instrument's `trace_cmd:`), for boards where tracefs cannot be written (this machine: "Can't
 * enable ftrace"). From trace-cmd's tracecmd/trace-record.c (rostedt/trace-cmd, 3.x): prints
 * "Hit Ctrl^C to stop recording" once recording, installs a SIGINT handler (so SIGINT stops it
 * even when started in the background of a shell, where SIGINT is ignored), writes the -o file,
 * then prints add_overrun()'s lines "CPU N: X events lost".
 *
 *   trace_cmd_sim record [-e EVENT]... [-b KB] -o FILE
 *   KVB_TRACE_START_MS  how long it takes to start recording (default 0)
 *   KVB_TRACE_LOST      "CPU:COUNT[,CPU:COUNT]..." events the buffer lost (default none)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_int(int s)
{
	(void)s;
	stop = 1;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *lost = getenv("KVB_TRACE_LOST"), *start = getenv("KVB_TRACE_START_MS");
	struct sigaction sa;
	FILE *f;
	if (argc < 2 || strcmp(argv[1], "record"))
		return fprintf(stderr, "usage: trace_cmd_sim record ... -o FILE\n"), 2;
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
	if (!out)
		return fprintf(stderr, "trace_cmd_sim: no -o FILE\n"), 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_int;
	sigaction(SIGINT, &sa, NULL);
	if (start) {
		long ms = atol(start);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	printf("Hit Ctrl^C to stop recording\n");
	fflush(stdout);
	while (!stop)
		pause();
	if (!(f = fopen(out, "w")) || fputs("trace_cmd_sim: a trace.dat stand-in\n", f) < 0 || fclose(f))
		return perror(out), 1;
	for (const char *p = lost; p && *p;) {
		int cpu;
		long long n;
		if (sscanf(p, "%d:%lld", &cpu, &n) == 2 && n)
			printf("CPU %d: %lld events lost\n", cpu, n);
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return 0;
}
