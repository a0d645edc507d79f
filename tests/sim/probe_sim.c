/*
 * probe_sim: a simulated energy probe. Writes the real output format of each
 * meter kvbench drives, from a known power function, so tests can check the
 * energy to the joule (constant 1.5 W for 10 s = 15.0 J; a step from 1 W to
 * 2 W at 5 s = 15.0 J) and the handling of bad data.
 *
 *   probe_sim FORMAT [--power const:W | step:W1:W2:T_S | wave:W:AMP:HZ] [--duration S] [--rate HZ]
 *             [--channels N] [--t0-ns NS|now] [--bad truncated|nan|nonmono|missing|empty]
 *             [--done FILE] [-o FILE]
 *             [--realtime [--buffer-s S] [--stop-on int|term|both|none]]
 *   (iio-capture mode reads the --done FILE from $PROBE_SIM_DONE)
 *   $PROBE_SIM_BOARD=DIR (any format): the power follows the kernel a simulated board booted
 *   (scripts/android-sim): DIR is an adbd_sim state directory, and DIR/kernel/cmdline (written
 *   by tests/sim/fastboot_sim) holds sim.power_mw=P; iio:device0 then reads 60 % of P and
 *   iio:device1 40 % (a big and a little rail), each recording at its own level within +-3 %
 *   (seeded by time and pid) with a 4 % ripple at 3 Hz.
 *   iio-capture -n HOST -b BUF -c -f FILE iio:deviceN   (probe_sim run through a symlink named
 *                                                        iio-capture acts as BayLibre's tool)
 *
 * FORMAT: csv (`time,ch0,...`, s and W), aep (arm-probe: '#' header, label line
 * "time NAME(V) NAME(A) NAME(W)", tab separated, s and W), acme (iio-capture
 * -c CSV as BayLibre's tool writes it: `"vshunt mV", "vbus mV", "power mW",
 * "current mA", "timestamp ms"`, values "%.1f" joined by ", ", time in ms
 * since the first sample; checked against a real capture in test_energy),
 * monsoon (output_power and usb_power in W, no timestamps).
 *
 * Sample i is at t_i = i / rate for i = 0..duration*rate, and holds the mean
 * power over (t_(i-1), t_i] like an integrating meter. With --done the
 * program writes everything, creates FILE, then waits for SIGTERM like a
 * meter that records until it is stopped. Bad lines are at data row
 * rows/2; the line number is printed on stderr ("bad line N").
 *
 * --realtime records like a real meter instead: sample i is written once its time
 * (i / rate after the program started) has passed, until a stop signal; --duration is
 * ignored. --t0-ns now stamps CSV rows with absolute CLOCK_REALTIME ns from the start.
 * --buffer-s S writes the samples in blocks of S seconds, as a tool that fills a buffer
 * before writing (0: every 10 ms). --stop-on says which signals the meter handles: on
 * those it writes every sample due so far, says "probe_sim: stopped by SIGINT after N samples"
 * on stderr and exits 0; any other of SIGINT/SIGTERM kills
 * it with the default action, so the block it holds is lost. caiman (the Arm Energy
 * Probe's host tool) installs a handler for SIGINT only (caiman/main.cpp; devlib #47/#48):
 * `--stop-on int`. `none` ignores both (a meter that hangs: only SIGKILL ends it).
 * Default: both.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* M_PI */
#endif
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double w1 = 1.5, w2 = 1.5, t_step = 0, wave_amp = 0, wave_hz = 0;
static int stepped;

/* Mean power (W) over (a, b]. */
static double mean_power(double a, double b)
{
	if (wave_hz > 0) /* bench data: a wave sampled at b (not an exact mean; only used for load) */
		return w1 + wave_amp * sin(2 * M_PI * wave_hz * b);
	if (!stepped || b <= t_step)
		return w1;
	if (a >= t_step)
		return w2;
	return (w1 * (t_step - a) + w2 * (b - t_step)) / (b - a);
}

static volatile sig_atomic_t stop_flag;
static void on_term(int s)
{
	stop_flag = s;
}

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* What every row needs to know, set by main. */
static const char *fmt, *bad = "";
static double rate;
static long long t0_ns, bad_row = -1;
static int t0_now; /* --t0-ns now: stamped from when recording starts */
static int cols, header_lines;

/* Fast fixed-point output: the bench writes 36 M rows. */
static char *put_fixed(char *p, double v, int decimals)
{
	static const long long scale[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000 };
	long long x;
	char tmp[32];
	int n = 0;
	if (v < 0) {
		*p++ = '-';
		v = -v;
	}
	x = llround(v * (double)scale[decimals]);
	long long ip = x / scale[decimals], fp = x % scale[decimals];
	do {
		tmp[n++] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	while (n)
		*p++ = tmp[--n];
	if (decimals) {
		*p++ = '.';
		for (int i = decimals - 1; i >= 0; i--) {
			p[i] = (char)('0' + fp % 10);
			fp /= 10;
		}
		p += decimals;
	}
	return p;
}

/* Writes data row i (0-based) in the chosen format. */
static void put_row(FILE *f, long long i)
{
	static char line[8192];
	double t = (double)i / rate, p = mean_power(i ? (double)(i - 1) / rate : 0, i ? t : 1e-12);
	long long tns = llround((double)i * 1e9 / rate);
	char *q = line;
	int is_bad = i == bad_row && *bad;
	if (!strcmp(fmt, "csv")) {
		if (t0_ns) {
			q += sprintf(q, "%lld", t0_ns + (is_bad && !strcmp(bad, "nonmono") ? -tns : tns));
		} else {
			q = put_fixed(q, is_bad && !strcmp(bad, "nonmono") ? t - 1 : t, 6);
		}
		for (int c = 0; c < cols; c++) {
			if (is_bad && !strcmp(bad, "truncated") && c == cols - 1)
				break;
			*q++ = ',';
			if (is_bad && !strcmp(bad, "nan")) {
				memcpy(q, "nan", 3);
				q += 3;
			} else {
				/* ch1.. are c+1 times ch0 so per-channel energies differ. */
				q = put_fixed(q, p * (c + 1), 6);
			}
		}
	} else if (!strcmp(fmt, "aep")) {
		q = put_fixed(q, is_bad && !strcmp(bad, "nonmono") ? t - 1 : t, 6);
		for (int c = 0; c < cols; c++) {
			if (is_bad && !strcmp(bad, "truncated") && c == cols - 1)
				break;
			double pw = p * (c + 1), v = 5.0;
			*q++ = '\t';
			q = put_fixed(q, v, 4);
			*q++ = '\t';
			q = put_fixed(q, pw / v, 6);
			*q++ = '\t';
			if (is_bad && !strcmp(bad, "nan")) {
				memcpy(q, "nan", 3);
				q += 3;
			} else {
				q = put_fixed(q, pw, 6);
			}
		}
	} else if (!strcmp(fmt, "acme")) {
		/* iio-capture -c: "%.1f, " per value, the timestamp last in ms since its first sample. */
		double ms = t * 1000.0, mw = p * 1000.0, mv = 5000.0;
		if (is_bad && !strcmp(bad, "truncated")) {
			q += sprintf(q, "%.1f, %.1f", 10.0, mv);
		} else {
			q += sprintf(q, "%.1f, %.1f, ", 10.0, mv);
			q += is_bad && !strcmp(bad, "nan") ? sprintf(q, "nan") : sprintf(q, "%.1f", mw);
			q += sprintf(q, ", %.1f, %.1f", mw / mv * 1000.0,
				     is_bad && !strcmp(bad, "nonmono") ? ms - 1000 : ms);
		}
	} else { /* monsoon */
		for (int c = 0; c < cols && c < 2; c++) {
			if (is_bad && !strcmp(bad, "truncated") && c == 1)
				break;
			if (c)
				*q++ = ' ';
			if (is_bad && !strcmp(bad, "nan")) {
				memcpy(q, "nan", 3);
				q += 3;
			} else {
				q = put_fixed(q, c ? 0.25 : p, 6);
			}
		}
	}
	*q++ = '\n';
	fwrite(line, 1, (size_t)(q - line), f);
	if (is_bad)
		fprintf(stderr, "bad line %lld\n", header_lines + i + 1);
}

/*
 * --realtime: writes each sample once its time has passed, in blocks of buffer_s seconds,
 * until a handled stop signal (then every sample due so far, and exit 0).
 */
static int record(FILE *f, double buffer_s)
{
	int64_t start = clock_ns(CLOCK_MONOTONIC);
	if (t0_now) /* the same instant on both clocks: sample i is at t0 + i / rate, when it was due */
		t0_ns = clock_ns(CLOCK_REALTIME);
	long long i = 0, block = buffer_s > 0 ? llround(buffer_s * rate) : 0;
	for (;;) {
		int stopping = stop_flag;
		long long due = (long long)((double)(clock_ns(CLOCK_MONOTONIC) - start) * rate / 1e9);
		for (; i <= due; i++) {
			put_row(f, i);
			if (block && (i + 1) % block == 0 && fflush(f))
				return perror("probe_sim: write"), 1;
		}
		if ((!block || stopping) && fflush(f))
			return perror("probe_sim: write"), 1;
		if (stopping) {
			/* said on stderr (the meter's .stderr file): tests see which signal stopped it cleanly */
			fprintf(stderr, "probe_sim: stopped by %s after %lld samples\n", stopping == SIGINT ? "SIGINT" : "SIGTERM",
				i);
			return f != stdout && fclose(f) ? 1 : 0;
		}
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL); /* a signal cuts it short */
	}
}

/* $PROBE_SIM_BOARD: the level from the booted kernel's sim.power_mw (see the top). 0, or -1 without one. */
static int board_power(const char *dir, const char *dev)
{
	char path[4096], cmd[4096];
	const char *p;
	double mw = 0, share = strcmp(dev, "iio:device1") ? 0.6 : 0.4;
	FILE *f;
	snprintf(path, sizeof(path), "%s/kernel/cmdline", dir);
	if (!(f = fopen(path, "r")))
		return -1;
	cmd[0] = '\0';
	if (!fgets(cmd, sizeof(cmd), f))
		cmd[0] = '\0';
	fclose(f);
	for (p = cmd; (p = strstr(p, "sim.power_mw=")); p++)
		if (p == cmd || p[-1] == ' ')
			mw = atof(p + strlen("sim.power_mw="));
	if (mw <= 0)
		return -1;
	srand((unsigned)time(NULL) ^ (unsigned)getpid() << 8);
	w1 = w2 = mw / 1000.0 * share * (1 + 0.06 * ((double)rand() / RAND_MAX - 0.5));
	wave_amp = 0.04 * w1;
	wave_hz = 3;
	return 0;
}

int main(int argc, char **argv)
{
	/* Installed (symlinked) as iio-capture it behaves as BayLibre's tool, whose argv has no format word. */
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	int iio = !strcmp(base, "iio-capture"), first = iio ? 1 : 2;
	const char *out_path = NULL, *done = NULL, *dev = "iio:device0", *stop_on = "both";
	double duration = 10, buffer_s = 0;
	int nch = 1, realtime = 0;
	FILE *f = stdout;

	fmt = iio ? "iio-capture" : argc > 1 ? argv[1] : "";
	for (int i = first; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--power") && v) {
			if (sscanf(v, "step:%lf:%lf:%lf", &w1, &w2, &t_step) == 3)
				stepped = 1;
			else if (sscanf(v, "wave:%lf:%lf:%lf", &w1, &wave_amp, &wave_hz) == 3)
				;
			else if (sscanf(v, "const:%lf", &w1) == 1)
				w2 = w1;
			else
				return fprintf(stderr, "probe_sim: bad --power '%s'\n", v), 2;
			i++;
		} else if (!strcmp(a, "--duration") && v) {
			duration = atof(v), i++;
		} else if (!strcmp(a, "--rate") && v) {
			rate = atof(v), i++;
		} else if (!strcmp(a, "--channels") && v) {
			nch = atoi(v), i++;
		} else if (!strcmp(a, "--t0-ns") && v) {
			t0_now = !strcmp(v, "now");
			t0_ns = t0_now ? clock_ns(CLOCK_REALTIME) : atoll(v), i++;
		} else if (!strcmp(a, "--realtime")) {
			realtime = 1;
		} else if (!strcmp(a, "--buffer-s") && v) {
			buffer_s = atof(v), i++;
		} else if (!strcmp(a, "--stop-on") && v) {
			stop_on = v, i++;
		} else if (!strcmp(a, "--bad") && v) {
			bad = v, i++;
		} else if (!strcmp(a, "--done") && v) {
			done = v, i++;
		} else if ((!strcmp(a, "-o") || (iio && !strcmp(a, "-f"))) && v) {
			out_path = v, i++;
		} else if (iio && (!strcmp(a, "-n") || !strcmp(a, "-b")) && v) {
			i++;
		} else if (iio && !strcmp(a, "-c")) {
		} else if (iio && a[0] != '-') {
			dev = a;
		} else {
			return fprintf(stderr, "probe_sim: unknown argument '%s'\n", a), 2;
		}
	}
	if (iio) {
		fmt = "acme";
		if (!out_path)
			return fprintf(stderr, "probe_sim: iio-capture needs -f FILE\n"), 2;
		if (strncmp(dev, "iio:device", 10))
			return fprintf(stderr, "Device %s not found\n", dev), 1;
		/* iio-capture has no such option: tests say where to signal "all written" by environment. */
		done = done ? done : getenv("PROBE_SIM_DONE") ? getenv("PROBE_SIM_DONE") : "";
	}
	if (getenv("PROBE_SIM_BOARD") && board_power(getenv("PROBE_SIM_BOARD"), dev))
		return fprintf(stderr, "probe_sim: no sim.power_mw in %s/kernel/cmdline\n", getenv("PROBE_SIM_BOARD")), 1;
	if (strcmp(fmt, "csv") && strcmp(fmt, "aep") && strcmp(fmt, "acme") && strcmp(fmt, "monsoon"))
		return fprintf(stderr, "usage: probe_sim csv|aep|acme|monsoon|iio-capture [options]\n"), 2;
	if (rate <= 0)
		rate = !strcmp(fmt, "acme") ? 100 : !strcmp(fmt, "aep") ? 10000 : !strcmp(fmt, "monsoon") ? 5000 : 1000;
	if (out_path && !(f = fopen(out_path, "w")))
		return perror(out_path), 1;
	if (strcmp(stop_on, "int") && strcmp(stop_on, "term") && strcmp(stop_on, "both") && strcmp(stop_on, "none"))
		return fprintf(stderr, "probe_sim: bad --stop-on '%s'\n", stop_on), 2;
	if (!strcmp(stop_on, "none")) {
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
	} else {
		if (strcmp(stop_on, "int"))
			signal(SIGTERM, on_term);
		if (strcmp(stop_on, "term"))
			signal(SIGINT, on_term);
	}
	/* a buffer larger than any block: what is written is what the meter chose to write (glibc
	 * ignores the size unless it is given the buffer) */
	{
		static char *buf; /* reachable to the end: no leak report */
		size_t sz = realtime ? (size_t)64 << 20 : (size_t)1 << 20;
		buf = malloc(sz);
		setvbuf(f, buf, _IOFBF, sz);
	}

	long long rows = llround(duration * rate) + 1;
	cols = nch;
	bad_row = realtime ? -1 : rows / 2;
	if (!strcmp(bad, "missing"))
		cols = nch - 1;
	if (!strcmp(bad, "empty"))
		rows = 0;
	else if (!strcmp(fmt, "csv")) {
		fputs(t0_ns ? "time_ns" : "time", f);
		for (int c = 0; c < cols; c++)
			fprintf(f, ",ch%d", c);
		fputc('\n', f);
		header_lines = 1;
	} else if (!strcmp(fmt, "aep")) {
		fputs("# configuration: probe_sim\n# config_name: sim\n#\n", f);
		fputs("time", f);
		for (int c = 0; c < cols; c++)
			fprintf(f, "\tCH%d(V)\tCH%d(A)\tCH%d(W)", c, c, c);
		fputc('\n', f);
		header_lines = 4;
	} else if (!strcmp(fmt, "acme")) {
		/* BayLibre iio-capture's header, byte for byte (tests/fixtures/field/acme). */
		fputs("\"vshunt mV\", \"vbus mV\", \"power mW\", \"current mA\", \"timestamp ms\"\n", f);
		header_lines = 1;
	}
	if (realtime)
		return record(f, buffer_s);
	for (long long i = 0; i < rows && !stop_flag; i++)
		put_row(f, i);
	if (fflush(f) || (f != stdout && fclose(f)))
		return perror("probe_sim: write"), 1;
	if (done) {
		if (*done) {
			FILE *d = fopen(done, "w");
			if (d)
				fclose(d);
		}
		while (!stop_flag)
			pause();
	}
	return 0;
}
