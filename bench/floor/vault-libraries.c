/* The C floor of bench/memory-floor.sh: what authbrokerd must do with its C libraries before it
 * can serve — one AES-256-GCM encryption with libcrypto (the vault's cipher; it loads OpenSSL's
 * default provider) and a SQLite database opened in WAL mode with one insert — then wait.
 * Prints "ready" when done. usage: vault-libraries DATABASE */
#include <openssl/evp.h>
#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
    unsigned char key[32] = {0}, nonce[12] = {0}, out[32], tag[16];
    int length = 0;
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (argc < 2 || !context || EVP_EncryptInit_ex2(context, EVP_aes_256_gcm(), key, nonce, NULL) != 1
        || EVP_EncryptUpdate(context, out, &length, (const unsigned char *)"token", 5) != 1
        || EVP_EncryptFinal_ex(context, out + length, &length) != 1
        || EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, tag) != 1)
        return 1;
    sqlite3 *db;
    if (sqlite3_open(argv[1], &db) != SQLITE_OK
        || sqlite3_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE IF NOT EXISTS t(x); INSERT INTO t VALUES(1);", 0, 0, 0)
               != SQLITE_OK)
        return 1;
    printf("ready\n");
    fflush(stdout);
    pause();
    return 0;
}
