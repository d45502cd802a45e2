// SPDX-License-Identifier: GPL-2.0
/*
 * Boot loader snippets.  apply acts on this boot; these make the choice
 * stick from the first instruction of the next one, before any workload.
 */
#include "cmdline_out.h"
#include "exit_codes.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *uboot_arch_name(const char *machine)
{
	static const struct {
		const char *prefix;
		const char *name;
	} map[] = {
		{ "aarch64", "arm64" }, { "arm64", "arm64" }, { "arm", "arm" },
		{ "x86_64", "x86_64" }, { "i686", "x86" }, { "i586", "x86" },
		{ "i386", "x86" }, { "riscv", "riscv" }, { "ppc", "powerpc" },
		{ "powerpc", "powerpc" }, { "s390", "s390" },
		{ "loongarch", "loongarch" }, { "mips", "mips" },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strncmp(machine, map[i].prefix, strlen(map[i].prefix)) == 0)
			return map[i].name;
	/* The script image does not depend on the CPU; any valid name does. */
	return "arm64";
}

/* A reason as a one-line comment: no newline may end the comment early. */
static void comment(FILE *out, const char *label, const char *text)
{
	fprintf(out, "# %s", label);
	for (; *text; text++)
		fputc((unsigned char)*text < 0x20 ? '?' : *text, out);
	fputc('\n', out);
}

/* The argument to put on the command line, or NULL for none. */
static const char *wanted_arg(const struct run *run, int *code,
			      const char **why)
{
	const struct decision *d = &run->decision;

	*code = d->bad_input ? EXIT_BAD_INPUT : EXIT_OK;
	*why = NULL;
	if (d->source == SRC_DISABLED) {
		*why = "preempt.policy=off: no preempt= argument";
		return NULL;
	}
	if (d->mode == MODE_KEEP) {
		*why = "keep the kernel's default: no preempt= argument";
		return NULL;
	}
	switch (decision_support(run->facts, d)) {
	case MODE_NOT_LISTED:
		*why = "the running kernel does not list this mode: no preempt= argument";
		*code = EXIT_CANNOT;
		return NULL;
	case MODE_LIST_UNKNOWN:
		*why = "the running kernel shows no mode list; check the next kernel offers this mode";
		break;
	case MODE_SUPPORTED:
		break;
	}
	return mode_name(d->mode);
}

void cmdline_snippet_line(FILE *out, enum cmdline_format format,
			  const char *args)
{
	if (format == CMDLINE_GRUB)
		fprintf(out, "GRUB_CMDLINE_LINUX=\"${GRUB_CMDLINE_LINUX} %s\"\n",
			args);
	else if (format == CMDLINE_UBOOT)
		fprintf(out, "setenv bootargs \"${bootargs} %s\"\n", args);
	else
		fprintf(out, "%s\n", args);
}

static void print_snippet(FILE *out, const struct run *run,
			  enum cmdline_format format, const char *mode,
			  const char *why)
{
	char arg[64];

	if (format == CMDLINE_PLAIN) {
		if (mode)
			fprintf(out, "preempt=%s\n", mode);
		if (why)
			fprintf(stderr, "preempt-policy: %s\n", why);
		return;
	}
	if (format == CMDLINE_GRUB) {
		fprintf(out, "# Written by preempt-policy cmdline --format grub.\n"
			"# Install as /etc/default/grub.d/preempt-policy.cfg, then run update-grub.\n");
	} else {
		fprintf(out, "# Written by preempt-policy cmdline --format uboot.\n"
			"# Run (source) before the boot command, or build boot.scr with --mkimage.\n");
	}
	comment(out, "Reason: ", run->decision.reason);
	if (why)
		comment(out, "Note: ", why);
	if (!mode)
		return;
	/* GRUB_CMDLINE_LINUX: every entry, recovery too; the mode is not a tweak. */
	snprintf(arg, sizeof(arg), "preempt=%s", mode);
	cmdline_snippet_line(out, format, arg);
}

static int run_mkimage(const struct run *run, const struct env *env,
		       const char *mode, const char *why, const char *out_path)
{
	char tmp[] = "/tmp/preempt-policy-bootcmd.XXXXXX";
	const char *arch = uboot_arch_name(run->facts->arch);
	char safe[PATH_MAX];

	/* "-x" is a file name here, not an option of mkimage's. */
	if (out_path[0] == '-') {
		if (snprintf(safe, sizeof(safe), "./%s", out_path) >=
		    (int)sizeof(safe)) {
			fprintf(stderr, "preempt-policy: --mkimage path too long\n");
			return EXIT_USAGE;
		}
		out_path = safe;
	}
	int fd, status = 0;
	FILE *script;
	pid_t pid;

	if (env->dry_run) {
		fprintf(stdout, "dry-run: would run: mkimage -A %s -O linux -T script -C none -n preempt-policy -d SCRIPT %s\n",
			arch, out_path);
		return EXIT_OK;
	}
	fd = mkstemp(tmp);
	if (fd < 0 || !(script = fdopen(fd, "w"))) {
		fprintf(stderr, "preempt-policy: temporary file: %s\n",
			strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return EXIT_WRITE_FAILED;
	}
	print_snippet(script, run, CMDLINE_UBOOT, mode, why);
	if (fclose(script)) {
		unlink(tmp);
		return EXIT_WRITE_FAILED;
	}
	pid = fork();
	if (pid == 0) {
		const char *argv[] = { "mkimage", "-A", arch, "-O", "linux",
				       "-T", "script", "-C", "none", "-n",
				       "preempt-policy", "-d", tmp, out_path,
				       NULL };
		int devnull = open("/dev/null", O_WRONLY);

		/* mkimage chats on stdout; ours carries the snippet. */
		if (devnull >= 0)
			dup2(devnull, STDOUT_FILENO);
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "preempt-policy: cannot run mkimage: %s (install u-boot-tools)\n",
			strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		unlink(tmp);
		fprintf(stderr, "preempt-policy: mkimage failed\n");
		return EXIT_WRITE_FAILED;
	}
	unlink(tmp);
	return EXIT_OK;
}

int cmdline_output(const struct run *run, const struct env *env,
		   enum cmdline_format format, const char *mkimage_out,
		   FILE *out)
{
	const char *mode, *why;
	int code;

	mode = wanted_arg(run, &code, &why);
	print_snippet(out, run, format, mode, why);
	if (mkimage_out) {
		int err = run_mkimage(run, env, mode, why, mkimage_out);

		if (err)
			return err;
	}
	return code;
}
