/*
 * fakenet_ca.c -- the worlds' CA and the leaf certificates the sink signs.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "base/xalloc.h"
#include "world/fakenet_int.h"

/* ---- TLS, decrypted with the worlds' CA ---- */

/*
 * The sink holds a copy (by fork) of the CA fakenet_ca_new() made in the
 * process that builds worlds (ECDSA P-256, 30 days), whose certificate
 * the world trusts, and signs a leaf for each ClientHello: the server
 * name asked for (when it is a plain host name) and the address dialled,
 * both as subjectAltNames, built with OpenSSL's object API (no hostile
 * name reaches a config-string parser).  OpenSSL
 * works on memory BIOs: the sink still does every read and send itself,
 * so the seccomp filter needs nothing more.  A client that does not
 * trust the CA (pinning, its own bundle) ends the handshake: the capture
 * then has the server name and byte count only, flagged tls_failed.
 */

static bool
is_host_name(const char *name, size_t len)
{
	size_t i;

	if (len == 0 || len > 253)
		return false;
	for (i = 0; i < len; i++) {
		char ch = name[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' ||
		    ch == '_' || ch == '*'))
			return false;
	}
	return true;
}

static int
add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX v3;
	X509_EXTENSION *ext;
	int ok;

	X509V3_set_ctx(&v3, issuer, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &v3, nid, value);	/* constants only */
	if (!ext)
		return -1;
	ok = X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	return ok ? 0 : -1;
}

/* A certificate for key, named cn, valid a day back and 30 ahead; the
 * caller sets the issuer and signs. */
static X509 *
cert_new(uint64_t serial, EVP_PKEY *key, const char *cn)
{
	X509 *x = X509_new();

	if (!x || !X509_set_version(x, 2) ||
	    !ASN1_INTEGER_set_int64(X509_get_serialNumber(x),
	    (int64_t)(((uint64_t)time(NULL) << 20) + serial)) ||
	    !X509_gmtime_adj(X509_getm_notBefore(x), -86400) ||
	    !X509_gmtime_adj(X509_getm_notAfter(x), 30L * 86400) ||
	    !X509_set_pubkey(x, key) ||
	    !X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN",
	    MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0)) {
		X509_free(x);
		return NULL;
	}
	return x;
}

X509 *
fnet_leaf_new(struct sink *s, const char *name, const struct conn *c)
{
	size_t len = name ? strlen(name) : 0;
	GENERAL_NAMES *sans = sk_GENERAL_NAME_new_null();
	GENERAL_NAME *g;
	ASN1_OCTET_STRING *ip;
	X509 *x;
	bool ok;

	x = cert_new(++s->serial, s->ca->leaf_key,
	    is_host_name(name, len) && len <= 64 ? name : "fakenet");
	ok = x && sans &&
	    X509_set_issuer_name(x, X509_get_subject_name(s->ca->cert));
	if (ok && is_host_name(name, len)) {
		ASN1_IA5STRING *dns = ASN1_IA5STRING_new();

		g = GENERAL_NAME_new();
		ok = dns && g && ASN1_STRING_set(dns, name, (int)len);
		if (ok) {
			GENERAL_NAME_set0_value(g, GEN_DNS, dns);
			ok = sk_GENERAL_NAME_push(sans, g) > 0;
			if (!ok)
				GENERAL_NAME_free(g);
		} else {
			ASN1_IA5STRING_free(dns);
			GENERAL_NAME_free(g);
		}
	}
	if (ok && c->family) {
		ip = ASN1_OCTET_STRING_new();
		g = GENERAL_NAME_new();
		ok = ip && g && ASN1_OCTET_STRING_set(ip, c->addr,
		    c->family == 4 ? 4 : 16);
		if (ok) {
			GENERAL_NAME_set0_value(g, GEN_IPADD, ip);
			ok = sk_GENERAL_NAME_push(sans, g) > 0;
			if (!ok)
				GENERAL_NAME_free(g);
		} else {
			ASN1_OCTET_STRING_free(ip);
			GENERAL_NAME_free(g);
		}
	}
	ok = ok && X509_add1_ext_i2d(x, NID_subject_alt_name, sans, 0,
	    X509V3_ADD_DEFAULT) == 1 &&
	    add_ext(x, s->ca->cert, NID_basic_constraints,
	    "critical,CA:FALSE") == 0 &&
	    add_ext(x, s->ca->cert, NID_ext_key_usage, "serverAuth") == 0 &&
	    add_ext(x, s->ca->cert, NID_authority_key_identifier, "keyid") == 0 &&
	    X509_sign(x, s->ca->key, EVP_sha256()) > 0;
	GENERAL_NAMES_free(sans);
	if (!ok) {
		X509_free(x);
		return NULL;
	}
	return x;
}

struct fakenet_ca *
fakenet_ca_new(char *why, size_t n)
{
	struct fakenet_ca *ca = xcalloc(1, sizeof *ca);
	BIO *m = NULL;
	char *p;
	long len;

	if (!OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, NULL))
		goto fail;
	ca->key = EVP_EC_gen("P-256");
	ca->leaf_key = EVP_EC_gen("P-256");
	if (!ca->key || !ca->leaf_key)
		goto fail;
	ca->cert = cert_new(0, ca->key, "sandboxrepl world CA (fake internet)");
	if (!ca->cert ||
	    !X509_set_issuer_name(ca->cert, X509_get_subject_name(ca->cert)) ||
	    add_ext(ca->cert, ca->cert, NID_basic_constraints, "critical,CA:TRUE") ||
	    add_ext(ca->cert, ca->cert, NID_key_usage,
	    "critical,keyCertSign,cRLSign") ||
	    add_ext(ca->cert, ca->cert, NID_subject_key_identifier, "hash") ||
	    X509_sign(ca->cert, ca->key, EVP_sha256()) <= 0)
		goto fail;
	m = BIO_new(BIO_s_mem());
	if (!m || !PEM_write_bio_X509(m, ca->cert) ||
	    (len = BIO_get_mem_data(m, &p)) <= 0)
		goto fail;
	ca->pem = xstrndup(p, (size_t)len);
	BIO_free(m);
	return ca;
fail: {
		const char *e = ERR_reason_error_string(ERR_get_error());

		snprintf(why, n, "fakenet: the CA: %s", e ? e : "OpenSSL failed");
	}
	ERR_clear_error();
	BIO_free(m);
	fakenet_ca_free(ca);
	return NULL;
}

const char *
fakenet_ca_pem(const struct fakenet_ca *ca)
{
	return ca->pem;
}

void
fakenet_ca_free(struct fakenet_ca *ca)
{
	if (!ca)
		return;
	EVP_PKEY_free(ca->key);
	EVP_PKEY_free(ca->leaf_key);
	X509_free(ca->cert);
	free(ca->pem);
	free(ca);
}
