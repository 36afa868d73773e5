/*
 * fakenet_dns.c -- what the sink sees on lo without a listener: the raw
 * sockets and their filters, DNS questions (reported, and their names
 * remembered for the connections after them), SYNs to ports nobody
 * listens on, UDP datagrams.
 */
#include "config.h"

#include <errno.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "world/fakenet_int.h"

/* ---- packets seen on lo ---- */

/* A DNS question's name, dotted, into out (cap FAKENET_NAME_MAX), and
 * its qtype.  Returns the name's length, or -1 if it is no question. */
static int
dns_question(const unsigned char *p, size_t n, char *out, uint16_t *qtype)
{
	size_t off = 12, len = 0;

	if (n < 12 || (p[2] & 0x80) || (p[4] == 0 && p[5] == 0))
		return -1;
	for (;;) {
		size_t l;

		if (off >= n)
			return -1;
		l = p[off++];
		if (l == 0)
			break;
		if (l > 63 || off + l > n)
			return -1;	/* compression pointers have no place here */
		if (len + (len > 0) + l > FAKENET_NAME_MAX)
			return -1;
		if (len > 0)
			out[len++] = '.';
		memcpy(out + len, p + off, l);
		len += l;
		off += l;
	}
	if (off + 2 > n)
		return -1;
	*qtype = (uint16_t)(p[off] << 8 | p[off + 1]);
	return (int)len;
}

/* A DNS question in data: a DNS frame (fr has the addresses and ports;
 * aux becomes the qtype), and its name remembered for the connections
 * after it.  false when data is no question. */
static bool
on_question(struct sink *s, struct frame *fr, const unsigned char *data,
    size_t len)
{
	char name[FAKENET_NAME_MAX];
	int namelen = dns_question(data, len, name, &fr->aux);

	if (namelen < 0)
		return false;
	if ((size_t)namelen == strlen(PROBE_NAME) &&
	    memcmp(name, PROBE_NAME, (size_t)namelen) == 0)
		return true;		/* fakenet_up's own */
	/* Only a name asked for an address names the connections after
	 * it (not a PTR, MX, ...). */
	if (fr->aux == 1 || fr->aux == 28) {
		memcpy(s->last_name, name, (size_t)namelen);
		s->last_namelen = (size_t)namelen;
	}
	fr->kind = FAKENET_DNS;
	fr->bytes = len;
	fr->f[F_NAME].p = name;
	fr->f[F_NAME].n = (size_t)namelen;
	fnet_emit(s, fr);
	return true;
}

/* A transport header and what follows, n bytes, from family (4, 6) to
 * addr: a SYN frame, a DNS frame or a UDP frame. */
static void
on_l4(struct sink *s, unsigned proto, uint8_t family, const uint8_t *addr,
    const unsigned char *p, size_t n)
{
	struct frame fr;

	memset(&fr, 0, sizeof fr);
	fr.family = family;
	memcpy(fr.addr, addr, family == 4 ? 4 : 16);
	if (proto == IPPROTO_TCP) {
		if (n < 20)
			return;
		fr.aux = (uint16_t)(p[0] << 8 | p[1]);
		fr.port = (uint16_t)(p[2] << 8 | p[3]);
		if ((p[13] & 0x12) != 0x02) {
			/* The filter lets through port 53's segments: a
			 * question over TCP, its 2-byte length first (one
			 * segment: a question is small). */
			size_t doff = (size_t)(p[12] >> 4) * 4;

			if (fr.port == 53 && doff >= 20 && n > doff + 2)
				(void)on_question(s, &fr, p + doff + 2,
				    n - doff - 2);
			return;
		}
		/* A listener there sees it whole.  Port 53 is dnsmasq's and
		 * still reported: the attempt itself. */
		if (fnet_is_sink_port(fr.port))
			return;
		fr.kind = FAKENET_SYN;
		fnet_set_name(s, &fr);
		fnet_emit(s, &fr);
	} else if (proto == IPPROTO_UDP) {
		size_t ulen;
		const unsigned char *data;

		if (n < 8)
			return;
		fr.aux = (uint16_t)(p[0] << 8 | p[1]);
		fr.port = (uint16_t)(p[2] << 8 | p[3]);
		ulen = (size_t)(p[4] << 8 | p[5]);
		if (ulen < 8 || ulen > n)
			return;
		if (fr.aux == 53)
			return;		/* dnsmasq's answers */
		data = p + 8;
		ulen -= 8;
		fr.bytes = ulen;
		if (fr.port == 53 && on_question(s, &fr, data, ulen))
			return;
		fr.kind = FAKENET_UDP;	/* port 53 too, when no question */
		fr.aux = (uint16_t)(p[0] << 8 | p[1]);
		fr.f[F_DATA].p = (const char *)data;
		fr.f[F_DATA].n = ulen < s->keep ? ulen : s->keep;
		if (ulen > s->keep)
			fr.flags |= FAKENET_TRUNCATED;
		fnet_set_name(s, &fr);
		fnet_emit(s, &fr);
	}
}

/*
 * The raw sockets that see what no listener does: a raw socket gets a
 * copy of every packet delivered locally with its protocol, whatever
 * the port, and (unlike AF_PACKET, whose bind and close each wait for an
 * RCU grace period, 5-15 ms here) costs microseconds.  Classic BPF keeps
 * TCP down to SYNs without ACK and what goes to port 53 (DNS questions
 * over TCP), and drops later IPv4 fragments.
 */
static struct sock_filter syn4_code[] = {
	BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 6),			/* 0: frag */
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 7, 0),	/* -> 9 */
	BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),			/* X = ihl */
	BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2),			/* dport */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 53, 3, 0),		/* -> 8 */
	BPF_STMT(BPF_LD | BPF_B | BPF_IND, 13),			/* flags */
	BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x12),		/* SYN|ACK */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x02, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0x40000),			/* 8 */
	BPF_STMT(BPF_RET | BPF_K, 0),				/* 9 */
};
static struct sock_filter udp4_code[] = {
	BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 6),
	BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, 0x40000),
	BPF_STMT(BPF_RET | BPF_K, 0),
};
static struct sock_filter syn6_code[] = {
	BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 2),			/* 0: dport */
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 53, 3, 0),		/* -> 5 */
	BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 13),
	BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x12),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x02, 0, 1),
	BPF_STMT(BPF_RET | BPF_K, 0x40000),			/* 5 */
	BPF_STMT(BPF_RET | BPF_K, 0),
};

const struct raw_kind fnet_raw_kinds[NRAW] = {
	{ AF_INET, IPPROTO_TCP, syn4_code, sizeof syn4_code / sizeof syn4_code[0] },
	{ AF_INET, IPPROTO_UDP, udp4_code, sizeof udp4_code / sizeof udp4_code[0] },
	{ AF_INET6, IPPROTO_TCP, syn6_code, sizeof syn6_code / sizeof syn6_code[0] },
	{ AF_INET6, IPPROTO_UDP, NULL, 0 },
};

int
fnet_raw_socket(const struct raw_kind *k)
{
	struct sock_fprog prog = { k->len, k->code };
	int fd, one = 1, e, rcvbuf = RAW_RCVBUF;

	fd = socket(k->family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    (int)k->proto);
	if (fd < 0)
		return -1;
	/* A deep queue (FORCE: past rmem_max, allowed to the namespace's
	 * own CAP_NET_ADMIN); what still overflows it, raw_dropped()
	 * counts. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
	    sizeof rcvbuf) == -1)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
		    sizeof rcvbuf);
	if ((k->code && setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
	    sizeof prog) == -1) ||
	    (k->family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6,
	    IPV6_RECVPKTINFO, &one, sizeof one) == -1)) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/*
 * Up to 256 packets from raw socket i.  IPv4 hands over the IP header
 * too; IPv6 starts at the transport header, with the destination as
 * IPV6_PKTINFO.
 */
void
fnet_read_raw(struct sink *s, size_t i)
{
	const struct raw_kind *k = &fnet_raw_kinds[i];
	int round;

	for (round = 0; round < 256; round++) {
		union {
			struct cmsghdr	 h;
			char		 b[CMSG_SPACE(sizeof(struct in6_pktinfo))];
		} ctl;
		struct iovec iov = { s->pktbuf, PKT_BUF };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
		    .msg_control = &ctl, .msg_controllen = sizeof ctl };
		const unsigned char *p = s->pktbuf;
		const uint8_t *dst6 = NULL;
		struct cmsghdr *c;
		ssize_t got = recvmsg(s->raw[i], &m, MSG_DONTWAIT);
		size_t n, ihl, tot;

		if (got < 0)
			return;
		n = (size_t)got;
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level == IPPROTO_IPV6 &&
			    c->cmsg_type == IPV6_PKTINFO &&
			    c->cmsg_len >= CMSG_LEN(sizeof(struct in6_pktinfo))) {
				dst6 = CMSG_DATA(c) +
				    offsetof(struct in6_pktinfo, ipi6_addr);
			}
		}
		if (k->family == AF_INET6) {
			uint8_t addr[16];

			if (!dst6)
				continue;
			memcpy(addr, dst6, 16);
			on_l4(s, k->proto, 6, addr, p, n);
			continue;
		}
		if (n < 20 || (p[0] >> 4) != 4)
			continue;
		ihl = (size_t)(p[0] & 0xf) * 4;
		tot = (size_t)(p[2] << 8 | p[3]);
		if (ihl < 20 || tot < ihl || tot > n ||
		    ((p[6] << 8 | p[7]) & 0x1fff) || p[9] != k->proto)
			continue;
		on_l4(s, k->proto, 4, p + 16, p + ihl, tot - ihl);
	}
}
