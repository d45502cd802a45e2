// SPDX-License-Identifier: GPL-2.0
/*
 * write-mode FILE TEXT: one write(2) of TEXT to FILE, as a caller that does
 * not retry a short write makes it, and print what it returned: the count
 * of bytes taken, or -ENAME. "\n" in TEXT stands for a newline and "\\"
 * for a backslash, so that the guest script can name every byte it sends.
 * For the parity checks of tests/parity/guest.sh: the shell's own write
 * loops over short counts and reports errors only as text.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static const char *errno_name(int err)
{
	switch (err) {
	case EINVAL:
		return "EINVAL";
	case EFAULT:
		return "EFAULT";
	case EPERM:
		return "EPERM";
	case EACCES:
		return "EACCES";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case ENODEV:
		return "ENODEV";
	case ENOENT:
		return "ENOENT";
	case EIO:
		return "EIO";
	default:
		return NULL;
	}
}

/* Print -ENAME for @err, or -errno N for one without a name here. */
static void print_errno(const char *what, int err)
{
	const char *name = errno_name(err);

	if (name)
		printf("%s-%s\n", what, name);
	else
		printf("%s-errno %d\n", what, err);
}

int main(int argc, char **argv)
{
	char buf[256];
	const char *in;
	size_t len = 0;
	ssize_t n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: write-mode FILE TEXT\n");
		return 2;
	}
	for (in = argv[2]; *in; in++) {
		if (len == sizeof(buf)) {
			fprintf(stderr, "write-mode: TEXT longer than %zu bytes\n", sizeof(buf));
			return 2;
		}
		if (in[0] == '\\' && in[1] == 'n') {
			buf[len++] = '\n';
			in++;
		} else if (in[0] == '\\' && in[1] == '\\') {
			buf[len++] = '\\';
			in++;
		} else {
			buf[len++] = *in;
		}
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		print_errno("open ", errno);
		return 1;
	}
	n = write(fd, buf, len);
	if (n < 0)
		print_errno("", errno);
	else
		printf("%zd\n", n);
	close(fd);
	return 0;
}
