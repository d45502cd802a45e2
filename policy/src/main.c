// SPDX-License-Identifier: GPL-2.0
/*
 * preempt-policy: choose the preemption mode from the machine and its
 * workload.  main only parses the command line and wires the parts.
 */
#include "advise.h"
#include "apply.h"
#include "cmdline_out.h"
#include "exit_codes.h"
#include "output_dir.h"
#include "state.h"
#include "verify.h"
#include "report.h"
#include "trial.h"

#include <errno.h>
#include <sys/stat.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PREEMPT_POLICY_VERSION
#define PREEMPT_POLICY_VERSION "0.1"
#endif

/* A day: longer than any boot may wait, short of alarm()'s limits. */
#define TIMEOUT_MAX_SECONDS 86400

static void usage(FILE *out)
{
	fprintf(out,
		"usage: preempt-policy [--root DIR] [--proc DIR] [--sys DIR] [--config FILE]\n"
		"                      [--dry-run] [--json] [--verbose] [--timeout SECONDS]\n"
		"                      [--output-dir DIR] COMMAND\n"
		"commands:\n"
		"  decide                     the mode and why\n"
		"  explain                    every fact and which rule matched\n"
		"  apply                      switch the running kernel to the mode\n"
		"  cmdline [--format grub|uboot|kernel-install] [--mkimage OUT] [--remove]\n"
		"                             preempt= for the next boot (--remove: none)\n"
		"  advise [--apply]           huge pages per PostgreSQL cluster, the mode after\n"
		"                             (--apply: sysctl.d file and live pool, recorded)\n"
		"  revert                     undo what advise --apply recorded\n"
		"  verify                     expected against actual: mode, pools, clusters\n"
		"  record                     keep the decision for the next boot (state file)\n"
		"  clear-state                remove the state file\n"
		"  after-start                record, or apply too (after-start = in the policy)\n"
		"  trial [OPTIONS]            measure the modes under the load, keep the winner\n"
		"                             (preempt-policy trial --help)\n"
		"other options: --arch ARCH, --kmsg FILE, --kernel-log FILE, --mount-debugfs,\n"
		"               --version, --help\n"
		"exit: 0 ok, 1 usage, 2 bad input, 3 kernel cannot, 4 write failed,\n"
		"      5 disabled (apply), 6 verify: differ, advise: changes required,\n"
		"      7 verify/advise: 2 and 6 together, 8 trial refused,\n"
		"      9 trial stopped (mode put back); see preempt-policy(8)\n");
}

enum opt_id {
	OPT_ROOT = 256, OPT_PROC, OPT_SYS, OPT_CONFIG, OPT_DRY_RUN, OPT_JSON,
	OPT_VERBOSE, OPT_FORMAT, OPT_MKIMAGE, OPT_ARCH, OPT_KMSG,
	OPT_MOUNT_DEBUGFS, OPT_TIMEOUT, OPT_OUTPUT_DIR, OPT_VERSION, OPT_HELP,
	OPT_KERNEL_LOG, OPT_REMOVE, OPT_APPLY,
};

static const struct option long_opts[] = {
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "proc", required_argument, NULL, OPT_PROC },
	{ "sys", required_argument, NULL, OPT_SYS },
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "mkimage", required_argument, NULL, OPT_MKIMAGE },
	{ "remove", no_argument, NULL, OPT_REMOVE },
	{ "apply", no_argument, NULL, OPT_APPLY },
	{ "arch", required_argument, NULL, OPT_ARCH },
	{ "kmsg", required_argument, NULL, OPT_KMSG },
	{ "kernel-log", required_argument, NULL, OPT_KERNEL_LOG },
	{ "mount-debugfs", no_argument, NULL, OPT_MOUNT_DEBUGFS },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "output-dir", required_argument, NULL, OPT_OUTPUT_DIR },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

struct cli {
	struct env env;
	const char *command;
	const char *format;
	const char *mkimage;
	bool remove;
	bool apply;
	unsigned int timeout;
	/* trial's own options: everything after the word trial */
	int trial_argc;
	char **trial_argv;
};

/* Whole seconds, 1 to TIMEOUT_MAX_SECONDS; 0 when @arg is anything else. */
static unsigned int parse_timeout(const char *arg)
{
	char *end;
	long secs;

	if (*arg < '0' || *arg > '9')
		return 0;
	errno = 0;
	secs = strtol(arg, &end, 10);
	if (errno || *end || secs < 1 || secs > TIMEOUT_MAX_SECONDS)
		return 0;
	return (unsigned int)secs;
}

/*
 * The boot hooks wait for this process; SIGALRM's default action ends it
 * wherever it is stuck, so they need no watchdog process of their own
 * (each fork is a measurable share of a small boot).  Armed before any
 * option acts, --output-dir's files included, wherever --timeout stands;
 * a bad value is reported by the option loop.
 */
static bool timeout_armed;

static void arm_timeout_first(int argc, char **argv)
{
	unsigned int seconds = 0;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
			seconds = parse_timeout(argv[++i]);
		else if (strncmp(argv[i], "--timeout=", 10) == 0)
			seconds = parse_timeout(argv[i] + 10);
	}
	if (seconds) {
		alarm(seconds);
		timeout_armed = true;
	}
}

/*
 * Where the word trial stands as the command (its options follow it and
 * are its own), or @argc: global options and their values come first.
 */
static int trial_word(int argc, char **argv)
{
	const struct option *o;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (argv[i][0] != '-')
			return strcmp(argv[i], "trial") == 0 ? i : argc;
		for (o = long_opts; o->name; o++)
			if (o->has_arg == required_argument &&
			    strncmp(argv[i], "--", 2) == 0 &&
			    strcmp(argv[i] + 2, o->name) == 0)
				i++;
	}
	return argc;
}

/* Returns -1 to continue, else an exit code. */
static int parse_cli(int argc, char **argv, struct cli *cli)
{
	struct stat st;
	int c, err, i;

	memset(cli, 0, sizeof(*cli));
	i = trial_word(argc, argv);
	if (i < argc) {
		cli->trial_argc = argc - i;
		cli->trial_argv = argv + i;
		argc = i + 1;
	}
	cli->env.root = "/";
	cli->env.proc = "/proc";
	cli->env.sys = "/sys";
	arm_timeout_first(argc, argv);
	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_ROOT:
			cli->env.root = optarg;
			break;
		case OPT_PROC:
			cli->env.proc = optarg;
			break;
		case OPT_SYS:
			cli->env.sys = optarg;
			break;
		case OPT_CONFIG:
			cli->env.config = optarg;
			break;
		case OPT_DRY_RUN:
			cli->env.dry_run = true;
			break;
		case OPT_JSON:
			cli->env.json = true;
			break;
		case OPT_VERBOSE:
			cli->env.verbose = true;
			break;
		case OPT_FORMAT:
			cli->format = optarg;
			break;
		case OPT_MKIMAGE:
			cli->mkimage = optarg;
			break;
		case OPT_REMOVE:
			cli->remove = true;
			break;
		case OPT_APPLY:
			cli->apply = true;
			break;
		case OPT_ARCH:
			cli->env.arch = optarg;
			break;
		case OPT_KMSG:
			cli->env.kmsg = optarg;
			break;
		case OPT_KERNEL_LOG:
			cli->env.klog = optarg;
			break;
		case OPT_MOUNT_DEBUGFS:
			cli->env.mount_debugfs = true;
			break;
		case OPT_TIMEOUT:
			cli->timeout = parse_timeout(optarg);
			if (!cli->timeout) {
				fprintf(stderr,
					"preempt-policy: --timeout takes whole seconds from 1 to %d, not '%s'\n",
					TIMEOUT_MAX_SECONDS, optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_OUTPUT_DIR:
			/*
			 * At once, so that what the options after it say
			 * lands in the files too (the timeout is already
			 * armed); if the files cannot be made, the run goes
			 * on (the boot still wants its mode) and says so
			 * where its output goes anyway.
			 */
			err = output_dir_redirect(optarg);
			if (err)
				fprintf(stderr, "preempt-policy: --output-dir %s: %s; output stays here\n",
					optarg, strerror(-err));
			break;
		case OPT_VERSION:
			printf("preempt-policy %s\n", PREEMPT_POLICY_VERSION);
			return EXIT_OK;
		case 'h':
		case OPT_HELP:
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "preempt-policy: %s\n", optind >= argc ?
			"missing COMMAND" : "one COMMAND expected");
		usage(stderr);
		return EXIT_USAGE;
	}
	cli->command = argv[optind];
	if (strcmp(cli->command, "decide") != 0 &&
	    strcmp(cli->command, "explain") != 0 &&
	    strcmp(cli->command, "apply") != 0 &&
	    strcmp(cli->command, "cmdline") != 0 &&
	    strcmp(cli->command, "advise") != 0 &&
	    strcmp(cli->command, "verify") != 0 &&
	    strcmp(cli->command, "record") != 0 &&
	    strcmp(cli->command, "after-start") != 0 &&
	    strcmp(cli->command, "revert") != 0 &&
	    strcmp(cli->command, "clear-state") != 0 &&
	    strcmp(cli->command, "trial") != 0) {
		fprintf(stderr, "preempt-policy: unknown command '%s'\n",
			cli->command);
		usage(stderr);
		return EXIT_USAGE;
	}
	if ((cli->format || cli->mkimage || cli->remove) &&
	    strcmp(cli->command, "cmdline") != 0) {
		fprintf(stderr, "preempt-policy: --format, --mkimage and --remove go with cmdline\n");
		return EXIT_USAGE;
	}
	if (cli->apply && (strcmp(cli->command, "advise") != 0 || cli->env.json)) {
		fprintf(stderr, "preempt-policy: --apply goes with advise, without --json\n");
		return EXIT_USAGE;
	}
	if (cli->format && strcmp(cli->format, "grub") != 0 &&
	    strcmp(cli->format, "uboot") != 0 &&
	    strcmp(cli->format, "kernel-install") != 0) {
		fprintf(stderr, "preempt-policy: --format is grub, uboot or kernel-install\n");
		return EXIT_USAGE;
	}
	if (cli->mkimage && cli->format &&
	    strcmp(cli->format, "uboot") != 0) {
		fprintf(stderr, "preempt-policy: --mkimage builds a U-Boot script\n");
		return EXIT_USAGE;
	}
	/* A typo in --root must not look like an empty machine. */
	if (stat(cli->env.root, &st)) {
		fprintf(stderr, "preempt-policy: --root %s: %s\n", cli->env.root,
			strerror(errno));
		return EXIT_USAGE;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "preempt-policy: --root %s: not a directory\n",
			cli->env.root);
		return EXIT_USAGE;
	}
	return -1;
}

static int run_command(const struct cli *cli, struct run *run)
{
	const struct env *env = &cli->env;
	int code = run->decision.bad_input ? EXIT_BAD_INPUT : EXIT_OK;
	enum cmdline_format format = CMDLINE_PLAIN;
	const char *cmd = cli->command;

	if (strcmp(cmd, "apply") == 0) {
		/*
		 * apply talks to the kernel log; with --json its human lines
		 * go to stderr so that stdout carries only the JSON object.
		 */
		code = apply_decision(run, env, &live_kernel_ops,
				      (void *)env, env->json ? stderr : stdout);
		if (env->json)
			report_json(stdout, run, code, 0);
		return code;
	}
	if (strcmp(cmd, "cmdline") == 0) {
		if (cli->format && strcmp(cli->format, "grub") == 0)
			format = CMDLINE_GRUB;
		else if (cli->format &&
			 strcmp(cli->format, "kernel-install") == 0)
			format = CMDLINE_KERNEL_INSTALL;
		else if ((cli->format && strcmp(cli->format, "uboot") == 0) ||
			 cli->mkimage)
			format = CMDLINE_UBOOT;
		return cmdline_output(run, env, format, cli->mkimage,
				      cli->remove, stdout);
	}
	if (strcmp(cmd, "advise") == 0 && cli->apply)
		return advise_apply(run, env, stdout);
	if (strcmp(cmd, "advise") == 0)
		return advise_output(run, env, stdout);
	if (strcmp(cmd, "revert") == 0)
		return advise_revert(env, stdout);
	if (strcmp(cmd, "verify") == 0)
		return verify_output(run, env, stdout);
	if (strcmp(cmd, "record") == 0)
		return state_record(run, env, stdout);
	if (strcmp(cmd, "after-start") == 0) {
		/*
		 * Run by the postgresql@.service drop-in once a cluster is up:
		 * the policy file says whether to do nothing, keep the
		 * decision for the next boot (default), or also switch now.
		 */
		if (run->policy->after_start == AFTER_OFF) {
			printf("after-start = off in the policy: nothing done\n");
			return EXIT_OK;
		}
		code = state_record(run, env, stdout);
		if (run->policy->after_start == AFTER_APPLY && code == EXIT_OK)
			code = apply_decision(run, env, &live_kernel_ops,
					      (void *)env, stdout);
		return code;
	}
	if (strcmp(cmd, "clear-state") == 0)
		return state_clear(env, stdout);
	if (strcmp(cmd, "trial") == 0)
		return trial_command(run, env, cli->trial_argc,
				     cli->trial_argv);
	if (env->json) {
		report_json(stdout, run, code, strcmp(cmd, "explain") == 0);
		return code;
	}
	if (strcmp(cmd, "explain") == 0)
		report_explain_text(stdout, run);
	else
		report_decide_text(stdout, run);
	return code;
}

int main(int argc, char **argv)
{
	struct diag_list *policy_diags;
	struct run run;
	struct cli cli;
	int code;

	code = parse_cli(argc, argv, &cli);
	if (code >= 0)
		return code;
	/* An abbreviated --time=N that the first scan did not see. */
	if (cli.timeout && !timeout_armed)
		alarm(cli.timeout);
	run.facts = calloc(1, sizeof(*run.facts));
	run.policy = calloc(1, sizeof(*run.policy));
	policy_diags = calloc(1, sizeof(*policy_diags));
	if (!run.facts || !run.policy || !policy_diags) {
		fprintf(stderr, "preempt-policy: out of memory\n");
		free(run.facts);
		free(run.policy);
		free(policy_diags);
		return EXIT_WRITE_FAILED;
	}
	run.policy_diags = policy_diags;
	policy_load(run.policy, &cli.env, policy_diags);
	facts_gather(run.facts, &cli.env, run.policy);
	if (run.facts->boot.policy_debug)
		cli.env.verbose = true;
	decide(run.facts, run.policy,
	       diag_total(policy_diags) + diag_total(&run.facts->diags) > 0,
	       &run.decision);
	/* Bad input is always reported on stderr: a silent fallback hides a typo. */
	report_diags(stderr, &run);
	if (cli.env.verbose && strcmp(cli.command, "explain") != 0 &&
	    !cli.env.json)
		report_explain_text(stderr, &run);
	code = run_command(&cli, &run);
	free(run.facts);
	free(run.policy);
	free(policy_diags);
	return code;
}
