/* A stand-in for authbrokerd's token route that costs next to nothing (bench/authctl-floor.sh):
 * one thread, accept, read to the end of the request head, one write of a fixed text/plain
 * token (950 bytes, like a JWT), close. Measures the client alone. usage: token-stub SOCKET */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 2 || strlen(argv[1]) >= sizeof(((struct sockaddr_un *)0)->sun_path)) return 64;
    char token[952];
    memset(token, 'x', 950);
    token[950] = '\n';
    token[951] = 0;
    char answer[2048];
    int length = snprintf(answer, sizeof answer,
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n\r\n%s", strlen(token), token);
    int listener = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strcpy(address.sun_path, argv[1]);
    unlink(argv[1]);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 128)) return 69;
    puts("ready");
    fflush(stdout);
    for (;;) {
        int connection = accept(listener, 0, 0);
        if (connection < 0) continue;
        char request[4096];
        int received = 0;
        for (;;) {
            int count = read(connection, request + received, sizeof request - received - 1);
            if (count <= 0) break;
            received += count;
            request[received] = 0;
            if (strstr(request, "\r\n\r\n")) {
                (void)!write(connection, answer, length);
                break;
            }
        }
        close(connection);
    }
}
