// SPDX-License-Identifier: GPL-2.0
/*
 * Boot loader snippets.  apply acts on this boot; these make the choice
 * stick from the first instruction of the next one, before any workload.
 */
#include "cmdline_out.h"
#include "exit_codes.h"
#include "paths.h"
#include "root_fs.h"
#include "util.h"

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
static const char *wanted_arg(const struct run *run, bool remove, int *code,
			      const char **why)
{
	const struct decision *d = &run->decision;

	*code = d->bad_input ? EXIT_BAD_INPUT : EXIT_OK;
	*why = NULL;
	if (remove) {
		*why = "--remove: no preempt= argument";
		return NULL;
	}
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

/* Is @w (@n bytes) a preempt= word, quoted whole or not? */
static bool is_preempt_word(const char *w, size_t n)
{
	if (n && w[0] == '"') {
		w++;
		n--;
	}
	return n >= 8 && memcmp(w, "preempt=", 8) == 0;
}

/*
 * Words of a kernel command line, blanks outside double quotes splitting
 * them as the kernel's next_arg() does; @cb gets each one.
 */
static void each_word(const char *s, size_t len,
		      void (*cb)(const char *w, size_t n, void *arg), void *arg)
{
	size_t i = 0;

	while (i < len) {
		size_t start;
		bool quoted = false;

		while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n'))
			i++;
		start = i;
		while (i < len && (quoted || (s[i] != ' ' && s[i] != '\t' &&
					      s[i] != '\n'))) {
			if (s[i] == '"')
				quoted = !quoted;
			i++;
		}
		if (i > start)
			cb(s + start, i - start, arg);
	}
}

struct words_out {
	FILE *out;
	bool from_proc;		/* /proc/cmdline: drop the boot loader's own */
	unsigned int n;
};

static void put_word(const char *w, size_t n, void *arg)
{
	struct words_out *wo = arg;

	if (is_preempt_word(w, n))
		return;
	/* kernel-install drops these from /proc/cmdline too. */
	if (wo->from_proc && ((n >= 11 && memcmp(w, "BOOT_IMAGE=", 11) == 0) ||
			      (n >= 7 && memcmp(w, "initrd=", 7) == 0)))
		return;
	fprintf(wo->out, "%s%.*s", wo->n++ ? " " : "", (int)n, w);
}

/*
 * /etc/kernel/cmdline as kernel-install (systemd-boot, BLS entries) would
 * read it next: the first of ROOT/etc/kernel/cmdline,
 * ROOT/usr/lib/kernel/cmdline and the running /proc/cmdline, with every
 * preempt= taken out and @mode's put in.  It is the whole line, since
 * the file replaces the command line; no comment, which it cannot hold.
 */
static int print_kernel_install(FILE *out, const struct env *env,
				const char *mode)
{
	static const char *const rooted[] = { "/" ETC_KERNEL_CMDLINE,
					      "/" USR_KERNEL_CMDLINE };
	struct words_out wo = { .out = out };
	char path[PATH_LEN], *buf = NULL;
	const char *from = NULL;
	size_t len, i;
	int err = -ENOENT;

	for (i = 0; i < ARRAY_SIZE(rooted) && err == -ENOENT; i++) {
		err = root_read_file(env->root, rooted[i], MAX_CMDLINE_FILE,
				     &buf, &len);
		from = rooted[i];
	}
	if (err == -ENOENT && !path_join(path, sizeof(path), env->proc,
					 PROC_CMDLINE)) {
		err = read_file_capped(path, MAX_CMDLINE_FILE, &buf, &len);
		from = path;
		wo.from_proc = true;
	}
	if (err) {
		fprintf(stderr, "preempt-policy: %s: cannot read: %s\n",
			from ? from : "/proc/cmdline", read_error_name(err));
		return EXIT_BAD_INPUT;
	}
	each_word(buf, len, put_word, &wo);
	free(buf);
	if (mode)
		fprintf(out, "%spreempt=%s", wo.n ? " " : "", mode);
	fputc('\n', out);
	fprintf(stderr, "preempt-policy: the whole line for /%s (from %s); then run kernel-install add for the installed kernels\n",
		ETC_KERNEL_CMDLINE, from);
	return EXIT_OK;
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
		fprintf(out, GRUB_SNIPPET_HEADER " --format grub.\n"
			"# Install as /" ETC_GRUB_SNIPPET ", then run update-grub.\n"
			"# To take it back: preempt-policy cmdline --format grub --remove > /" ETC_GRUB_SNIPPET "\n");
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
		   bool remove, FILE *out)
{
	const char *mode, *why;
	int code;

	mode = wanted_arg(run, remove, &code, &why);
	if (format == CMDLINE_KERNEL_INSTALL) {
		int err = print_kernel_install(out, env, mode);

		if (why)
			fprintf(stderr, "preempt-policy: %s\n", why);
		return err ? err : code;
	}
	print_snippet(out, run, format, mode, why);
	if (mkimage_out) {
		int err = run_mkimage(run, env, mode, why, mkimage_out);

		if (err)
			return err;
	}
	return code;
}
