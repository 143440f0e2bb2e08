#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

#include <stdint.h>
#include <stddef.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>
#ifdef __linux__
#include <linux/filter.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

/// MHD_start_daemon is variadic, which Swift cannot call. This shim passes the
/// completion callback explicitly and every other option through MHD_OPTION_ARRAY
/// (the array must end with an MHD_OPTION_END item).
/// The connection callback (accepted, closed) and the URI log callback (request line read)
/// share `completed_context`.
static inline struct MHD_Daemon *CMicroHTTPD_start_daemon(
    unsigned int flags,
    uint16_t port,
    MHD_AccessHandlerCallback handler,
    void *handler_context,
    MHD_RequestCompletedCallback completed,
    MHD_NotifyConnectionCallback connection_notify,
    void *(*uri_log)(void *cls, const char *uri, struct MHD_Connection *connection),
    void *completed_context,
    struct MHD_OptionItem *options)
{
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_context,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                            MHD_OPTION_NOTIFY_CONNECTION, connection_notify, completed_context,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_log, completed_context,
                            MHD_OPTION_ARRAY, options,
                            MHD_OPTION_END);
}

/// The socket of a connection, or -1.
static inline int CMicroHTTPD_connection_fd(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// What the connection callback stored in `*socket_context`, or NULL.
static inline void *CMicroHTTPD_socket_context(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// The port the daemon is bound to (useful after binding port 0), or 0 if unknown.
static inline uint16_t CMicroHTTPD_bound_port(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// How many connections the daemon holds right now (suspended ones included).
static inline unsigned int CMicroHTTPD_current_connections(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}

/// The peer address of a connection, or NULL.
static inline const struct sockaddr *CMicroHTTPD_client_address(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// Makes a listening socket drop every packet that would start a connection (SYNs, handshake
/// ACKs), so no connection joins its queue any more: clients retry their SYN and, once the
/// socket is closed, are refused before they send anything. Linux only; elsewhere does nothing.
static inline int CMicroHTTPD_stop_handshakes(int listener)
{
#ifdef __linux__
    struct sock_filter drop = BPF_STMT(BPF_RET | BPF_K, 0);
    struct sock_fprog program = { .len = 1, .filter = &drop };
    return setsockopt(listener, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof program);
#else
    (void) listener;
    return 0;
#endif
}

#ifdef __linux__
/* glibc declares accept4 only under _GNU_SOURCE, too late to define here. */
int accept4(int socket, struct sockaddr *address, socklen_t *length, int flags);
#else
#include <fcntl.h>
#endif

/// `accept`, with the new socket closed on exec (so a child process never inherits a client's connection).
static inline int CMicroHTTPD_accept_cloexec(int listener, struct sockaddr *address, socklen_t *length)
{
#ifdef __linux__
    return accept4(listener, address, length, SOCK_CLOEXEC);
#else
    int client = accept(listener, address, length);
    if (client >= 0) (void) fcntl(client, F_SETFD, FD_CLOEXEC);
    return client;
#endif
}

/// Adds one key/value pair's size (plus 4 for ": " and CRLF, or "&" and "=") to the size_t at cls.
static inline enum MHD_Result CMicroHTTPD_add_size(void *cls, enum MHD_ValueKind kind, const char *key,
                                                   size_t key_size, const char *value, size_t value_size)
{
    (void) kind; (void) key; (void) value;
    *(size_t *) cls += key_size + value_size + 4;
    return MHD_YES;
}

/// The total size of a connection's values of one kind (headers, query arguments), as on the wire.
static inline size_t CMicroHTTPD_values_size(struct MHD_Connection *connection, enum MHD_ValueKind kind)
{
    size_t total = 0;
    MHD_get_connection_values_n(connection, kind, CMicroHTTPD_add_size, &total);
    return total;
}

#ifdef __linux__
/* glibc declares dl_iterate_phdr and its struct only under _GNU_SOURCE, too late to define here: the same
   declaration, and the struct's first members (their layout is glibc's ABI since 2.2.4). */
struct dl_phdr_info;
int dl_iterate_phdr(int (*callback)(struct dl_phdr_info *info, size_t size, void *data), void *data);
struct CMicroHTTPD_phdr_info {
    ElfW(Addr) dlpi_addr;
    const char *dlpi_name;
    const ElfW(Phdr) *dlpi_phdr;
    ElfW(Half) dlpi_phnum;
};

/// One import of libmicrohttpd to redirect: `symbol`, called through libmicrohttpd's own import table,
/// goes to `replacement` instead; `slots` counts the table entries changed.
struct CMicroHTTPD_import {
    const char *symbol;
    void *replacement;
    int slots;
};

/// `dl_iterate_phdr` visitor: in libmicrohttpd's shared object, points every relocated import slot
/// (PLT and GOT) of each `CMicroHTTPD_import` at its replacement. Only calls libmicrohttpd makes through
/// its own imports are redirected; the application's calls to the same functions go through its own table.
/// `data` is a `CMicroHTTPD_import` array ending with a NULL `symbol`. Returns 1 (stop) once it found it.
static inline int CMicroHTTPD_redirect_visit(struct dl_phdr_info *loaded, size_t size, void *data)
{
    (void) size;
    const struct CMicroHTTPD_phdr_info *info = (const struct CMicroHTTPD_phdr_info *) loaded;
    if (info->dlpi_name == NULL || strstr(info->dlpi_name, "libmicrohttpd.so") == NULL) return 0;
    const ElfW(Dyn) *dynamic = NULL;
    uintptr_t relro = 0, relroEnd = 0;
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type == PT_DYNAMIC) dynamic = (const ElfW(Dyn) *) (info->dlpi_addr + header->p_vaddr);
        if (header->p_type == PT_GNU_RELRO) {
            relro = info->dlpi_addr + header->p_vaddr;
            relroEnd = relro + header->p_memsz;
            relro &= ~(uintptr_t) (sysconf(_SC_PAGESIZE) - 1);
        }
    }
    if (dynamic == NULL) return 1;
    uintptr_t symbols = 0, names = 0, tables[2] = { 0, 0 };
    size_t sizes[2] = { 0, 0 };
    long pltKind = DT_RELA;
    for (const ElfW(Dyn) *entry = dynamic; entry->d_tag != DT_NULL; entry++) {
        switch (entry->d_tag) {
        case DT_SYMTAB: symbols = entry->d_un.d_ptr; break;
        case DT_STRTAB: names = entry->d_un.d_ptr; break;
        case DT_JMPREL: tables[0] = entry->d_un.d_ptr; break;
        case DT_PLTRELSZ: sizes[0] = entry->d_un.d_val; break;
        case DT_RELA: tables[1] = entry->d_un.d_ptr; break;
        case DT_RELASZ: sizes[1] = entry->d_un.d_val; break;
        case DT_PLTREL: pltKind = (long) entry->d_un.d_val; break;
        default: break;
        }
    }
    if (pltKind != DT_RELA || symbols == 0 || names == 0) return 1;
    /* The loader relocates these addresses in place on most targets; where it does not, they are offsets. */
    if (symbols < info->dlpi_addr) symbols += info->dlpi_addr;
    if (names < info->dlpi_addr) names += info->dlpi_addr;
    long page = sysconf(_SC_PAGESIZE);
    for (int table = 0; table < 2; table++) {
        if (tables[table] == 0) continue;
        uintptr_t start = tables[table] < info->dlpi_addr ? tables[table] + info->dlpi_addr : tables[table];
        const ElfW(Rela) *relocations = (const ElfW(Rela) *) start;
        for (size_t index = 0; index < sizes[table] / sizeof(ElfW(Rela)); index++) {
#if __ELF_NATIVE_CLASS == 64
            size_t symbol = ELF64_R_SYM(relocations[index].r_info);
#else
            size_t symbol = ELF32_R_SYM(relocations[index].r_info);
#endif
            if (symbol == 0) continue;
            const char *name = (const char *) names + ((const ElfW(Sym) *) symbols)[symbol].st_name;
            for (struct CMicroHTTPD_import *import = data; import->symbol != NULL; import++) {
                if (strcmp(name, import->symbol) != 0) continue;
                uintptr_t slot = info->dlpi_addr + relocations[index].r_offset;
                void *aligned = (void *) (slot & ~(uintptr_t) (page - 1));
                if (mprotect(aligned, (size_t) page, PROT_READ | PROT_WRITE) != 0) continue;
                __atomic_store_n((void **) slot, import->replacement, __ATOMIC_SEQ_CST);
                /* Full RELRO: the loader made the whole pages of this segment read-only; so is this one again. */
                if ((uintptr_t) aligned >= relro && (uintptr_t) aligned + (uintptr_t) page <= relroEnd)
                    mprotect(aligned, (size_t) page, PROT_READ);
                import->slots++;
            }
        }
    }
    return 1;
}

/// Redirects libmicrohttpd's calls of its own exported functions named in `imports` (see
/// `CMicroHTTPD_redirect_visit`); each import's `slots` says how many table entries now point at its replacement.
static inline void CMicroHTTPD_redirect_imports(struct CMicroHTTPD_import *imports)
{
    dl_iterate_phdr(CMicroHTTPD_redirect_visit, imports);
}
#else
struct CMicroHTTPD_import {
    const char *symbol;
    void *replacement;
    int slots;
};

static inline void CMicroHTTPD_redirect_imports(struct CMicroHTTPD_import *imports)
{
    (void) imports;
}
#endif

#endif
