// Umbrella header for the system OpenSSL 3 (Debian: libssl-dev).
// Macros and variadic functions do not import into Swift; see SWIFT-LINUX-NOTES.md for
// the function-call equivalents used instead (SSL_ctrl, CRYPTO_free, ...).
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
// getrandom(2), the source of BrokerCrypto's `Random` (Glibc's module map does not export
// <sys/random.h>); here because BrokerCrypto reaches the system through this module.
#include <sys/random.h>
