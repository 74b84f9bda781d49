/* The floor of any `authctl token`: a static C program that connects to the socket, sends the
 * token request, reads the answer to EOF and prints the body (bench/authctl-floor.sh).
 * usage: token-client SOCKET NAME */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 3 || strlen(argv[1]) >= sizeof(((struct sockaddr_un *)0)->sun_path)) return 64;
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strcpy(address.sun_path, argv[1]);
    if (connect(fd, (struct sockaddr *)&address, sizeof address)) return 69;
    char request[512];
    int length = snprintf(request, sizeof request,
        "GET /v1/accounts/%s/token HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain\r\nConnection: close\r\n\r\n", argv[2]);
    if (length <= 0 || length >= (int)sizeof request || write(fd, request, length) != length) return 1;
    char answer[16384];
    int received = 0, count;
    while (received < (int)sizeof answer && (count = read(fd, answer + received, sizeof answer - received)) > 0) received += count;
    char *body = memmem(answer, received, "\r\n\r\n", 4);
    if (!body) return 1;
    body += 4;
    return write(1, body, answer + received - body) > 0 ? 0 : 1;
}
