/*
 * pyrun_reply.c -- a world's reply to the session (wire.h): its frames,
 * on the socket, and the workspace as the reply carries it: its tree,
 * within the caps, what they left out said.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pyrun_int.h"
#include "wire.h"
#include "world_int.h"

static int sock_fd = -1;

void
pyrun_reply_to(int sock)
{
	sock_fd = sock;
}

void
pyrun_send_frame(enum ww_type type, const void *a, size_t alen,
    const void *b, size_t blen)
{
	if (output_send(sock_fd, (int)type, a, alen, b, blen) == -1)
		_exit(0);	/* the session is gone */
}

void
pyrun_send_cut(enum ww_cut what, uint64_t held)
{
	uint32_t w = what;

	pyrun_send_frame(WW_CUT, &w, 4, &held, 8);
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The workspace as a tree, depth first in name order within each
 * directory (a directory before what it holds), within the caps: at most
 * WW_MAX_FILES entries, WW_MAX_FILE_BYTES of contents, WW_MAX_DEPTH
 * levels.  A file it cannot read (chmod 0) is sent marked unreadable,
 * not left out; what the caps leave out is counted, and the first of
 * their paths named, in one T frame at the end.
 */
struct walk {
	uint32_t	 sent, left;
	uint64_t	 budget;
	char		 unsent[WW_MAX_UNSENT];
	size_t		 unsent_len;
	char		 path[WW_MAX_PATH + 2];
};

/* One entry the caps left out; a directory's path ends in '/'. */
static void
left_out(struct walk *w, size_t plen, bool dir)
{
	w->left++;
	if (plen + 2 <= sizeof w->unsent - w->unsent_len) {
		memcpy(w->unsent + w->unsent_len, w->path, plen);
		w->unsent_len += plen;
		if (dir)
			w->unsent[w->unsent_len++] = '/';
		w->unsent[w->unsent_len++] = '\0';
	}
}

static void
send_entry(const char *path, size_t plen, uint32_t mode, const char *data,
    size_t len)
{
	char head[8 + WW_MAX_PATH];
	uint32_t n = (uint32_t)plen;

	memcpy(head, &n, 4);
	memcpy(head + 4, &mode, 4);
	memcpy(head + 8, path, plen);
	pyrun_send_frame(WW_FILE, head, 8 + plen, data, len);
}

static void
send_tree(int dirfd, size_t prefix, unsigned depth, struct walk *w)
{
	char *names[WW_MAX_FILES * 4];
	size_t nnames = 0, i;
	struct dirent *de;
	DIR *d;
	int fd = dup(dirfd);

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		w->left++;	/* (unnamed: its contents are unknown) */
		return;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (nnames == sizeof names / sizeof names[0]) {
			w->left++;	/* past what one directory lists */
			continue;
		}
		names[nnames] = strdup(de->d_name);
		if (names[nnames] != NULL)
			nnames++;
	}
	closedir(d);
	qsort(names, nnames, sizeof names[0], cmp_names);
	for (i = 0; i < nnames; i++) {
		size_t nlen = strlen(names[i]), plen = prefix + nlen;
		struct stat sb;
		char *data = NULL;
		ssize_t got = 0;
		uint32_t mode;
		int f;

		if (plen > WW_MAX_PATH || fstatat(dirfd, names[i], &sb,
		    AT_SYMLINK_NOFOLLOW) == -1) {
			w->left++;	/* a path too long to send, or gone */
			free(names[i]);
			continue;
		}
		memcpy(w->path + prefix, names[i], nlen);
		mode = (uint32_t)sb.st_mode;
		if (w->sent == WW_MAX_FILES ||
		    (S_ISREG(sb.st_mode) && (uint64_t)sb.st_size > w->budget)) {
			left_out(w, plen, S_ISDIR(sb.st_mode));
			free(names[i]);
			continue;
		}
		if (S_ISREG(sb.st_mode)) {
			f = openat(dirfd, names[i], O_RDONLY | O_NOFOLLOW |
			    O_NONBLOCK | O_CLOEXEC);
			if (f < 0 && errno == EACCES)
				mode |= WW_UNREADABLE;	/* listed, not read */
			else if (f < 0) {
				left_out(w, plen, false);
				free(names[i]);
				continue;
			} else {
				data = malloc((size_t)sb.st_size + 1);
				got = data ? read(f, data,
				    (size_t)sb.st_size + 1) : -1;
				close(f);
				if (got < 0 || got > sb.st_size) {
					free(data);
					left_out(w, plen, false);
					free(names[i]);
					continue;
				}
			}
		} else if (S_ISLNK(sb.st_mode)) {
			data = malloc(WW_MAX_PATH);
			got = data ? readlinkat(dirfd, names[i], data,
			    WW_MAX_PATH) : -1;
			if (got < 0 || got == WW_MAX_PATH)
				got = 0;
		}
		if (S_ISDIR(sb.st_mode)) {
			int sub = openat(dirfd, names[i], O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0 && errno == EACCES)
				mode |= WW_UNREADABLE;	/* listed, not read */
			send_entry(w->path, plen, mode, NULL, 0);
			w->sent++;
			w->path[plen] = '/';
			if (sub < 0 && errno != EACCES)
				left_out(w, plen, true);
			else if (sub >= 0 && depth + 1 >= WW_MAX_DEPTH)
				left_out(w, plen, true);
			else if (sub >= 0)
				send_tree(sub, plen + 1, depth + 1, w);
			if (sub >= 0)
				close(sub);
			free(names[i]);
			continue;
		}
		send_entry(w->path, plen, mode, data, (size_t)got);
		free(data);
		w->budget -= (uint64_t)got;
		w->sent++;
		free(names[i]);
	}
}

void
pyrun_send_workspace(int wsdir)
{
	static struct walk w;

	w.sent = w.left = 0;
	w.budget = WW_MAX_FILE_BYTES;
	w.unsent_len = 0;
	memcpy(w.unsent, &w.left, 4);	/* room for the count */
	w.unsent_len = 4;
	send_tree(wsdir, 0, 0, &w);
	if (w.left > 0) {
		memcpy(w.unsent, &w.left, 4);
		pyrun_send_frame(WW_TRUNCATED, w.unsent, w.unsent_len, NULL, 0);
	}
}
