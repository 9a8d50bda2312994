// The machine's floor for one request and its answer between two processes over loopback TCP
// (TCP_NODELAY): a client sends 300 bytes and waits for 200, a server answers each at once.
// Build and run: cc -O2 -o /tmp/pingpong pingpong.c && /tmp/pingpong [ROUND_TRIPS]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void exchange(int fd, char *buffer, size_t send_size, size_t receive_size) {
    if (send_size && write(fd, buffer, send_size) != (ssize_t)send_size) exit(1);
    for (size_t got = 0; got < receive_size;) {
        ssize_t n = read(fd, buffer, receive_size - got);
        if (n <= 0) exit(1);
        got += (size_t)n;
    }
}

int main(int argc, char **argv) {
    int trips = argc > 1 ? atoi(argv[1]) : 20000, one = 1;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof address;
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    if (bind(listener, (struct sockaddr *)&address, length) || listen(listener, 1)) return 1;
    getsockname(listener, (struct sockaddr *)&address, &length);
    static char buffer[4096];
    if (fork() == 0) {
        int fd = accept(listener, NULL, NULL);
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        for (int i = 0; i < trips; i++) { exchange(fd, buffer, 0, 300); exchange(fd, buffer, 200, 0); }
        return 0;
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&address, length)) return 1;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int i = 0; i < trips; i++) exchange(fd, buffer, 300, 200);
    clock_gettime(CLOCK_MONOTONIC, &end);
    wait(NULL);
    double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    printf("%d round trips over loopback TCP: %.1f us each\n", trips, seconds / trips * 1e6);
    return 0;
}
