/*
 * fakenet_int.h -- what the pieces of the fake internet share (private:
 * only src/world/fakenet*.c include it; the API is fakenet.h).
 *
 * fakenet.c is the caller's side (start, wait, read captures, down) and
 * the overview of the whole; the rest is cut by responsibility:
 *
 *   fakenet_frame.c  names and ports, the frame format (encode, decode,
 *                    fakenet_url) and the sink's output queue (fnet_emit);
 *   fakenet_ns.c     the namespace's set-up: netlink (lo up, AnyIP
 *                    routes), what every child does first, dnsmasq;
 *   fakenet_dns.c    packets seen on lo: the raw sockets, DNS questions,
 *                    SYNs without a listener, UDP;
 *   fakenet_conn.c   one connection: HTTP, SMTP, TLS decryption, and its
 *                    capture (fnet_conn_end);
 *   fakenet_ca.c     the worlds' CA and the leaves signed per ClientHello;
 *   fakenet_sink.c   the sink process: its set-up, confinement and loop.
 *
 * The calls go one way, so the objects have no cycle (depgraph.test):
 * fakenet -> sink, ns, ca, frame; sink -> conn, dns, ns, frame;
 * conn -> ca, frame; dns -> frame; ns, ca and frame call none of them.
 * Everything here is the sink's or the caller's own process state; the
 * ownership rules are those of fakenet.c's overview.
 */
#ifndef SANDBOXREPL_FAKENET_INT_H
#define SANDBOXREPL_FAKENET_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/filter.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "world/fakenet.h"


#define DNSMASQ_PATH	"/usr/sbin/dnsmasq"
/* The descriptor dnsmasq is executed from, at and above which it can
 * open nothing (RLIMIT_NOFILE): the only execveat its filter allows
 * names a descriptor no process of dnsmasq's can have once the exec
 * closed this one (see fnet_dnsmasq_child).  Below the world's own
 * RLIMIT_NOFILE (world_int.h's WORLD_NOFILE, 256), which its helpers
 * start under: they are within the world's budget too. */
#define DNSMASQ_EXEC_FD	255
#define FRAME_VERSION	1
#define NFIELDS		7
#define MAX_CONNS	224		/* open connections at once (within
				   the world's 256 descriptors) */
#define READ_LIMIT	(4u << 20)	/* bytes read from one connection */
#define OUT_CAP		(1u << 20)	/* frames waiting for the caller */
#define PKT_BUF		65600		/* one packet from lo (MTU 65536) */
#define NRAW		4		/* raw sockets: TCP, UDP x v4, v6 */
#define RAW_RCVBUF	(4 << 20)	/* each raw socket's queue */
#define TLS_PENDING_MAX	(256u << 10)	/* ciphertext OpenSSL has not read */
#define DRAIN_ROUNDS	64		/* poll passes a sync may take */
/* The name fakenet_up() asks dnsmasq for until it answers: the sink
 * neither reports it nor remembers it for the connections that follow. */
#define PROBE_NAME	"fakenet.invalid"

/* ---- frames (fakenet_frame.c) ---- */

/* One capture as the sink builds it; fnet_frame_encode() writes it. */
struct frame {
	enum fakenet_kind kind;
	unsigned	 flags;
	uint16_t	 port, aux;
	uint32_t	 conn;
	uint64_t	 bytes;
	uint8_t		 family;	/* 0, 4, 6 */
	uint8_t		 addr[16];
	struct fakenet_str f[NFIELDS];	/* name sni method host path body data */
};
enum { F_NAME, F_SNI, F_METHOD, F_HOST, F_PATH, F_BODY, F_DATA };

/* Little-endian fields of a frame. */
static inline void
put16(unsigned char *p, uint16_t v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

static inline void
put32(unsigned char *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static inline uint16_t
get16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t
get32(const unsigned char *p)
{
	return get16(p) | (uint32_t)get16(p + 2) << 16;
}
/* ------------------------------------------------------------------ */
/* the sink                                                            */
/* ------------------------------------------------------------------ */

/* ---- the sink's state (fakenet_sink.c) ---- */

enum proto { P_UNKNOWN, P_HTTP, P_TLS, P_SMTP, P_RAW };

struct conn {
	int		 fd;		/* -1: free slot */
	uint32_t	 id;
	uint8_t		 family, addr[16];
	uint16_t	 port, sport;
	char		 name[FAKENET_NAME_MAX];
	size_t		 namelen;
	int64_t		 start, last;
	unsigned char	*buf;		/* keep bytes, owned by the sink */
	size_t		 have;
	uint64_t	 total;
	unsigned char	 tail[5];	/* the stream's last bytes */
	unsigned	 flags;
	enum proto	 proto;
	const char	*reply;		/* said after the capture is out */
	bool		 alert;		/* the same: a TLS alert */
	/* HTTP */
	size_t		 hdr_end;	/* 0: headers not complete */
	uint64_t	 clen;
	bool		 chunked, expect, sent100;
	/* SMTP */
	size_t		 line_off, body_off, body_end;
	bool		 in_data;
	/* TLS: the ClientHello's server name; once the handshake is done
	 * buf holds the plaintext, and ptotal counts it */
	SSL		*ssl;		/* NULL: not (or no longer) decrypting */
	bool		 tls, tls_done;
	char		 sni[FAKENET_NAME_MAX];
	size_t		 snilen;
	uint64_t	 ptotal;	/* bytes for the protocol (== total
					   without TLS) */
};

struct sink {
	int		 cap, ctl, rdy;
	int		 raw[NRAW];	/* see fnet_raw_kinds; -1: no IPv6 */
	uint32_t	 raw_drops[NRAW];	/* SK_MEMINFO_DROPS so far */
	int		 last_fd;	/* the highest set-up descriptor */
	int		 lfd[16];
	uint16_t	 lport[16];
	size_t		 nl;
	uint8_t		 answer[4];
	size_t		 keep, body_cap;
	int64_t		 idle, life;
	struct conn	 conns[MAX_CONNS];
	uint32_t	 next_id;
	char		 last_name[FAKENET_NAME_MAX];
	size_t		 last_namelen;
	unsigned char	*out;
	size_t		 out_len;
	uint64_t	 dropped;
	unsigned char	*frame;		/* FAKENET_FRAME_MAX scratch */
	unsigned char	*pktbuf;
	unsigned char	 scratch[16384];
	/* the CA (a copy of the caller's, from fork) and the server
	 * context, made at the first ClientHello */
	const struct fakenet_ca *ca;
	SSL_CTX		*tls;
	uint64_t	 serial;
	unsigned char	 plain[16384];
};

/* The worlds' CA (fakenet_ca.c); the sink holds a copy from fork. */
struct fakenet_ca {
	EVP_PKEY	*key, *leaf_key;
	X509		*cert;
	char		*pem;
};

/* A raw socket the sink opens (fakenet_dns.c's table, by index). */
struct raw_kind {
	int		 family;
	unsigned	 proto;
	struct sock_filter *code;
	unsigned short	 len;
};

#pragma GCC visibility push(hidden)

/* fakenet_frame.c */
bool	fnet_is_smtp_port(uint16_t port);
bool	fnet_is_sink_port(uint16_t port);
size_t	fnet_frame_encode(unsigned char *dst, const struct frame *fr);
void	fnet_out_flush(struct sink *s);
void	fnet_emit(struct sink *s, const struct frame *fr);
void	fnet_set_name(const struct sink *s, struct frame *fr);

/* fakenet_ns.c */
extern int fnet_dnsmasq_image;
int	fnet_net_setup(int *has_ipv6, char *why, size_t n);
pid_t	fnet_fork(int devnull, int err, const int *keep, unsigned nkeep,
	    const char **failed);
pid_t	fnet_spawn(int devnull, int err, const int *keep, unsigned nkeep,
	    void (*fn)(void *arg, const char *failed), void *arg);
int	fnet_caps_keep(uint32_t mask);
int	fnet_dnsmasq_prepare(char *why, size_t n);
void	fnet_dnsmasq_child(const char *path, int image, const char *answer,
	    const char *failed) __attribute__((noreturn));

/* fakenet_sink.c */
int	fnet_sink_prepare(void);

/* fakenet_dns.c */
extern const struct raw_kind fnet_raw_kinds[NRAW];
int	fnet_raw_socket(const struct raw_kind *k);
void	fnet_read_raw(struct sink *s, size_t i);

/* fakenet_ca.c */
X509	*fnet_leaf_new(struct sink *s, const char *name, const struct conn *c);

/* fakenet_conn.c */
void	fnet_say(struct conn *c, const char *text);
void	fnet_conn_end(struct sink *s, struct conn *c, unsigned flags);
void	fnet_conn_read(struct sink *s, struct conn *c, int64_t now);

/* fakenet_sink.c */
void	fnet_sink_child(const struct fakenet_config *cfg,
	    const struct fakenet_ca *ca, const uint8_t answer[4],
	    const char *failed) __attribute__((noreturn));

#pragma GCC visibility pop

#endif
