/* grade_sandbox: the sandbox of one unit (see grade_sandbox.h). Three
 * processes: the unit's grading child sets up the namespaces, the copy of
 * the submission and the new root's mounts (it is still privileged: root,
 * or root of a new user namespace when mdat grade is not root), then forks
 * the sandbox's init (PID 1 of the new PID namespace: it mounts /proc in
 * the new root and enters it, reaps orphans, and its end kills every
 * process left inside), which forks the worker: as root in a user
 * namespace of its own that init maps (mdat's user and the program's), it
 * becomes mdat's user there and runs the work, the program and its build
 * running as the program's. The grading child checks what the work left
 * and copies the private tmpfs out once init has ended. */
#include "ui/grade/grade_sandbox.h"
#include "ui/lincheck/lc_spec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/securebits.h>

#include "supervisor/engine/execution.h"
#include "supervisor/launch/spawn.h"

/* When mdat grade runs as root, submission i runs as a user of its own,
 * which no file and no other process belongs to: SANDBOX_UID_BASE + a
 * number made of mdat grade's process id and i (shards of one class may
 * grade the same submission at once, and RLIMIT_NPROC counts per user);
 * mdat's processes in the sandbox run as another such user,
 * EXPLORER_UID_OFFSET above it. Inside the sandbox's user namespace the
 * program's user is SANDBOX_NS_UID and mdat's is 0 (with only the
 * capabilities it needs to trace, signal and start the program: the
 * kernel refuses the program any of that against mdat). Without root,
 * the one user a user namespace maps, SANDBOX_NS_UID, is both. */
enum { SANDBOX_UID_BASE = 1 << 28, EXPLORER_UID_OFFSET = 1 << 26, SANDBOX_NS_UID = 1000, HIDE_TMPFS_KB = 64 };

static struct {
    bool probed;
    bool usable;            /* mount namespace (and user namespace when not root) */
    bool as_root;
    int optional_flags;     /* PID, IPC, UTS, network: those the kernel allows */
} here;

/* Whether a child can unshare flags (forked: this process stays as it is). */
static bool can_unshare(int flags)
{
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0)
        _exit(unshare(flags) == 0 ? 0 : 1);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void probe(void)
{
    if (here.probed)
        return;
    here.probed = true;
    here.as_root = geteuid() == 0;
    int base = CLONE_NEWNS | (here.as_root ? 0 : CLONE_NEWUSER);
    here.usable = can_unshare(base);
    if (!here.usable)
        return;
    const int optional[] = {CLONE_NEWPID, CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWNET};
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
        if (can_unshare(base | optional[i]))
            here.optional_flags |= optional[i];
}

void grade_sandbox_announce(const struct grade_settings *s)
{
    if (!s->sandbox) {
        fprintf(stderr, "mdat grade: --no-sandbox: submissions run as %s, with everything this user can read, "
                        "write and signal (for trusted code only)\n", geteuid() == 0 ? "root" : "you");
        return;
    }
    probe();
    if (!here.usable) {
        fprintf(stderr, "mdat grade: WARNING: NO SANDBOX: this machine refuses %s (%s); submissions run "
                        "unisolated, as %s. Grade untrusted code elsewhere.\n",
                here.as_root ? "mount namespaces" : "unprivileged user namespaces",
                here.as_root ? "a container without CAP_SYS_ADMIN?"
                             : "kernel.unprivileged_userns_clone or user.max_user_namespaces",
                here.as_root ? "root" : "you");
        return;
    }
    const struct {
        int flag;
        const char *what;
    } parts[] = {{CLONE_NEWPID, "PID namespace (processes left behind are still killed, but a submission "
                                "sees and may signal the grader's processes of its user)"},
                 {CLONE_NEWNET, "network namespace (submissions have the network)"},
                 {CLONE_NEWIPC, "IPC namespace (System V IPC and POSIX message queues are shared)"},
                 {CLONE_NEWUTS, "UTS namespace"}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (!(here.optional_flags & parts[i].flag))
            fprintf(stderr, "mdat grade: WARNING: the sandbox has no %s: this machine refuses it\n", parts[i].what);
    if (!here.as_root)
        fprintf(stderr, "mdat grade: WARNING: not root: every submission runs as you (uid %d) in a user namespace, "
                        "not as a user of its own, and so do mdat's processes in its sandbox: it cannot read or "
                        "trace them (they are not dumpable) nor signal them (refused), but it sees their command "
                        "lines and may write its unit's files (as root, neither)\n", (int)getuid());
}

bool grade_sandbox_usable(const struct grade_settings *s)
{
    if (!s->sandbox)
        return false;
    probe();
    return here.usable;
}

/* ---------- setting up (in the grading child, still privileged) ---------- */

static bool fail(char *err, size_t errlen, const char *what, const char *path)
{
    snprintf(err, errlen, "sandbox: %s %s: %s", what, path ? path : "", strerror(errno));
    return false;
}

static bool write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    close(fd);
    return ok;
}

/* Without root: a user namespace where this process is SANDBOX_NS_UID,
 * with every capability inside it (to mount), none outside. uid and gid
 * are the grader's, read before the namespace was made: inside it, before
 * the map, getuid() says 65534 (the overflow id), which only nobody
 * could map. */
static bool map_user(uid_t uid, gid_t gid, char *err, size_t errlen)
{
    char map[64];
    if (!write_file("/proc/self/setgroups", "deny"))
        return fail(err, errlen, "cannot write", "/proc/self/setgroups");
    snprintf(map, sizeof map, "%d %d 1\n", SANDBOX_NS_UID, (int)uid);
    if (!write_file("/proc/self/uid_map", map))
        return fail(err, errlen, "cannot write", "/proc/self/uid_map");
    snprintf(map, sizeof map, "%d %d 1\n", SANDBOX_NS_UID, (int)gid);
    if (!write_file("/proc/self/gid_map", map))
        return fail(err, errlen, "cannot write", "/proc/self/gid_map");
    return true;
}

/* The program's user and group, as the grading child (outside the
 * sandbox's user namespace) names them. */
static void sandbox_ids(const struct sandbox_plan *p, uid_t *uid, gid_t *gid)
{
    *uid = here.as_root ? (uid_t)SANDBOX_UID_BASE + (uid_t)(p->grader % 8192) * 4096 + (uid_t)(p->submission % 4096)
                        : SANDBOX_NS_UID;
    *gid = (gid_t)*uid;
}

/* As root: mdat's user in the sandbox, as seen from outside. */
static uid_t explorer_id(const struct sandbox_plan *p)
{
    uid_t uid;
    gid_t gid;
    sandbox_ids(p, &uid, &gid);
    return uid + EXPLORER_UID_OFFSET;
}

/* mkdir -p, ignoring what exists (parents on the read-only file system). */
static void make_path(const char *path)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0755);
            *p = '/';
        }
    mkdir(buf, 0755);
}

/* The teacher's checker (the first word of --check, an absolute path) as a
 * descriptor taken before the view hides its directory (/tmp, HOME); -1 for
 * none. */
static int open_checker(const struct grade_settings *s, char path[PATH_MAX])
{
    if (!s->check_cmd || s->check_cmd[0] != '/')
        return -1;
    size_t n = strcspn(s->check_cmd, " \t");
    if (n >= PATH_MAX)
        return -1;
    memcpy(path, s->check_cmd, n);
    path[n] = '\0';
    return open(path, O_PATH | O_CLOEXEC);
}

/* --lincheck: the spec and the files its lines name that the spec's
 * folder holds (the teacher's header, sequential implementation), not the
 * folder itself (it may hold other students' work), and mdat's own
 * executable (each scenario's checker is `mdat lincheck --judge`), taken
 * as descriptors like the checker; -1 for none. */
enum { LINCHECK_BINDS = 2 * LC_MAX_FILES + 2 };
struct lincheck_view {
    int n;
    char path[LINCHECK_BINDS][PATH_MAX];
    int fd[LINCHECK_BINDS];
};

static void add_bind(struct lincheck_view *v, const char *dir, const char *name)
{
    if (v->n == LINCHECK_BINDS)
        return;
    char *path = v->path[v->n];
    if (name[0] == '/' || !dir)
        snprintf(path, PATH_MAX, "%s", name);
    else
        snprintf(path, PATH_MAX, "%s/%s", dir, name);
    struct stat st;
    if (strncmp(path, "/usr/", 5) == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return;     /* the system's are in the root already; the rest are the submission's */
    v->fd[v->n] = open(path, O_PATH | O_CLOEXEC);
    if (v->fd[v->n] >= 0)
        v->n++;
}

static void open_lincheck(const struct grade_settings *s, struct lincheck_view *v)
{
    v->n = 0;
    if (!s->lincheck_spec)
        return;
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        add_bind(v, NULL, self);
    }
    add_bind(v, NULL, s->lincheck_spec);
    struct lc_spec spec;
    char err[256];
    if (lc_spec_load(s->lincheck_spec, &spec, err, sizeof err)) {
        for (int i = 0; i < spec.nsources; i++)
            add_bind(v, spec.dir, spec.sources[i]);
        for (int i = 0; i < spec.nincludes; i++)
            add_bind(v, spec.dir, spec.includes[i]);
    }
    lc_spec_free(&spec);
}

static void close_lincheck(struct lincheck_view *v)
{
    for (int i = 0; i < v->n; i++)
        close(v->fd[i]);
    v->n = 0;
}

/* Binds what fd (an O_PATH descriptor of this process) is at path in the
 * new root, made as a file or a directory; read-only unless writable. */
static bool bind_fd(int fd, const char *root, const char *path, bool is_dir, bool writable)
{
    char at[PATH_MAX * 2], from[64];
    snprintf(at, sizeof at, "%s%s", root, path);
    if (is_dir) {
        make_path(at);
    } else {
        char dir[PATH_MAX * 2];
        snprintf(dir, sizeof dir, "%s", at);
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir) {
            *slash = '\0';
            make_path(dir);
        }
        int made = open(at, O_CREAT | O_WRONLY | O_CLOEXEC, 0755);     /* a mount point */
        if (made >= 0)
            close(made);
    }
    snprintf(from, sizeof from, "/proc/%d/fd/%d", (int)getpid(), fd);
    if (mount(from, at, NULL, MS_BIND, NULL) != 0)
        return false;
    return writable || mount(NULL, at, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) == 0;
}

/* Binds the host's path (a directory, recursively) read-only at the same
 * path in the new root; a symbolic link (/bin -> usr/bin) is made again as
 * a link. Paths this machine lacks are left out. */
static bool bind_system(const char *root, const char *path, char *err, size_t errlen)
{
    struct stat st;
    char at[PATH_MAX];
    snprintf(at, sizeof at, "%s%s", root, path);
    if (lstat(path, &st) != 0)
        return true;
    if (S_ISLNK(st.st_mode)) {
        char target[PATH_MAX];
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n <= 0)
            return true;
        target[n] = '\0';
        return symlink(target, at) == 0 || fail(err, errlen, "cannot make the link", at);
    }
    if (!S_ISDIR(st.st_mode))
        return true;
    make_path(at);
    if (mount(path, at, NULL, MS_BIND | MS_REC, NULL) != 0)
        return fail(err, errlen, "cannot bind", path);
    struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
    if (mount_setattr(AT_FDCWD, at, AT_RECURSIVE, &ro, sizeof ro) != 0)
        return fail(err, errlen, "cannot make read-only", at);
    return true;
}

/* /dev of the new root: a few devices of the host's, nothing else. */
static bool make_dev(const char *root, char *err, size_t errlen)
{
    char at[PATH_MAX], dev[PATH_MAX];
    snprintf(at, sizeof at, "%s/dev", root);
    make_path(at);
    if (mount("tmpfs", at, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755") != 0)
        return fail(err, errlen, "cannot mount a tmpfs on", at);
    const char *nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++) {
        snprintf(dev, sizeof dev, "/dev/%s", nodes[i]);
        snprintf(at, sizeof at, "%s/dev/%s", root, nodes[i]);
        struct stat st;
        if (stat(dev, &st) != 0 || !S_ISCHR(st.st_mode))
            continue;
        int made = open(at, O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
        if (made >= 0)
            close(made);
        if (mount(dev, at, NULL, MS_BIND, NULL) != 0)
            return fail(err, errlen, "cannot bind", dev);
    }
    const char *links[][2] = {{"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"},
                              {"stderr", "/proc/self/fd/2"}};
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        snprintf(at, sizeof at, "%s/dev/%s", root, links[i][0]);
        if (symlink(links[i][1], at) != 0)
            return fail(err, errlen, "cannot make the link", at);
    }
    snprintf(at, sizeof at, "%s/dev/shm", root);
    make_path(at);
    return true;
}

/* Runs argv, waiting for it; true if it exited 0. */
static bool run_quietly(char *const argv[])
{
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 1);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The private copy of the submission (a directory or one program), owned by
 * the sandbox's user. src is reached through an open descriptor: by now the
 * submissions are hidden. */
static bool copy_submission(const struct sandbox_plan *p, int src_fd, bool src_is_dir, uid_t uid, gid_t gid,
                            char *err, size_t errlen)
{
    char src[64], dst[PATH_MAX], owner[64];
    /* cp gets the descriptor (without close-on-exec): a process without
     * capabilities may not look into a privileged one's descriptors. */
    int inherited = dup(src_fd);
    snprintf(src, sizeof src, "/proc/self/fd/%d%s", inherited, src_is_dir ? "/." : "");
    make_path(p->copy_dir);
    if (src_is_dir) {
        snprintf(dst, sizeof dst, "%s", p->copy_dir);
    } else {
        const char *base = strrchr(p->settings->submissions[p->submission], '/');
        base = base ? base + 1 : p->settings->submissions[p->submission];
        snprintf(dst, sizeof dst, "%s/%s", p->copy_dir, base);
    }
    char *cp[] = {"cp", "-R", "-H", "--preserve=mode,timestamps", "--", src, dst, NULL};
    snprintf(owner, sizeof owner, "%d:%d", (int)uid, (int)gid);
    char *chown_argv[] = {"chown", "-R", "-h", "--", owner, (char *)p->copy_dir, NULL};
    bool copied = inherited >= 0 && run_quietly(cp);
    if (inherited >= 0)
        close(inherited);
    if (!copied) {
        errno = EIO;
        return fail(err, errlen, "cannot copy", p->settings->submissions[p->submission]);
    }
    if (!run_quietly(chown_argv)) {
        errno = EPERM;
        return fail(err, errlen, "cannot give the copy to the sandbox's user:", p->copy_dir);
    }
    return true;
}

/* What the sandbox's root holds of the machine: the system (programs,
 * libraries, /etc), read-only. Not /home, /root, /srv, /opt, /run, /var,
 * /mnt, /media, /work or wherever the teacher's and the students' files
 * are: only the unit's own directory (at its path, so that schedules
 * replay from the same paths outside), the checker and mdat's allocator. */

#define SANDBOX_ROOT "/tmp/.mdat-root"
static const char *const system_paths[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
                                           "/sys/devices/system/cpu"};

/* The new root at root (a tmpfs): the system, /dev, a mount point for
 * /proc (init mounts its own), /tmp, /var/tmp and /dev/shm on the unit's
 * private one, the unit's directory, the checker. */
static bool fill_root(const struct sandbox_plan *p, const char *root, int unit_fd, int checker_fd,
                      const char *checker, int alloc_fd, const char *alloc, const struct lincheck_view *lc,
                      char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof system_paths / sizeof system_paths[0]; i++)
        if (!bind_system(root, system_paths[i], err, errlen))
            return false;
    if (!make_dev(root, err, errlen))
        return false;
    char at[PATH_MAX], tmp[PATH_MAX];
    snprintf(at, sizeof at, "%s/proc", root);
    make_path(at);
    /* Without a PID namespace of its own, init cannot mount another. */
    if (!(here.optional_flags & CLONE_NEWPID) && mount("/proc", at, NULL, MS_BIND | MS_REC, NULL) != 0)
        return fail(err, errlen, "cannot bind", "/proc");
    snprintf(tmp, sizeof tmp, "/proc/%d/fd/%d/.tmp", (int)getpid(), unit_fd);
    const char *tmps[] = {"/tmp", "/var/tmp", "/dev/shm"};
    for (size_t i = 0; i < sizeof tmps / sizeof tmps[0]; i++) {
        snprintf(at, sizeof at, "%s%s", root, tmps[i]);
        make_path(at);
        if (mount(tmp, at, NULL, MS_BIND, NULL) != 0)
            return fail(err, errlen, "cannot bind the private /tmp on", at);
    }
    /* Before the unit's directory, which may lie below them. */
    for (int i = 0; i < lc->n; i++)
        if (!bind_fd(lc->fd[i], root, lc->path[i], false, false))
            return fail(err, errlen, "cannot bind lincheck's file", lc->path[i]);
    if (!bind_fd(unit_fd, root, p->unit_dir, true, true))
        return fail(err, errlen, "cannot bind the private tmpfs on", p->unit_dir);
    if (checker_fd >= 0 && !bind_fd(checker_fd, root, checker, false, false))
        return fail(err, errlen, "cannot bind the checker", checker);
    if (alloc_fd >= 0 && !bind_fd(alloc_fd, root, alloc, false, false))
        return fail(err, errlen, "cannot bind mdat's allocator", alloc);
    return true;
}

/* mdat's allocator, which the program loads with page ownership: the
 * system's copy is in the root already; one beside a build of mdat is
 * bound at its path. -1: none to bind. */
static int open_allocator(const char **path)
{
    *path = spawn_allocator_path();
    if (!*path || strncmp(*path, "/usr/", 5) == 0)
        return -1;
    return open(*path, O_PATH | O_CLOEXEC);
}

/* Makes root this mount namespace's root; the old one is gone from it. */
static bool enter_root(const char *root, char *err, size_t errlen)
{
    if (mount(NULL, root, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0)
        return fail(err, errlen, "cannot make read-only", root);
    /* pivot_root(".", "."): the old root goes under the new one, and is
     * then detached from it. */
    if (chdir(root) != 0 || syscall(SYS_pivot_root, ".", ".") != 0)
        return fail(err, errlen, "cannot pivot_root to", root);
    if (umount2(".", MNT_DETACH) != 0 || chdir("/") != 0)
        return fail(err, errlen, "cannot let go of the old root", "");
    return true;
}

/* The mounts, in this (new) mount namespace, up to the new root (which
 * init enters once it has mounted its /proc there: a new /proc may be
 * mounted in a user namespace only where a whole one is in sight). */
static bool build_view(const struct sandbox_plan *p, int src_fd, bool src_is_dir, char *err, size_t errlen)
{
    const struct grade_settings *s = p->settings;
    uid_t uid;
    gid_t gid;
    sandbox_ids(p, &uid, &gid);
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return fail(err, errlen, "cannot make the mounts private", "");
    /* The unit's tmpfs first, held by a descriptor: the new root goes on
     * /tmp, which may hold it. */
    make_path(p->unit_dir);
    /* mdat's: the program writes only in its copy and /tmp (as root,
     * where it is another user, it cannot touch what mdat writes). */
    uid_t owner = here.as_root ? explorer_id(p) : uid;
    char opts[128];
    snprintf(opts, sizeof opts, "size=%llu,mode=0755,uid=%d,gid=%d", (unsigned long long)s->max_disk, (int)owner,
             (int)owner);
    if (mount("tmpfs", p->unit_dir, "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0)
        return fail(err, errlen, "cannot mount a tmpfs on", p->unit_dir);
    int unit_fd = open(p->unit_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s/.tmp", p->unit_dir);
    if (unit_fd < 0 || mkdir(tmp, 01777) != 0 || chmod(tmp, 01777) != 0)
        return fail(err, errlen, "cannot make", tmp);
    char checker[PATH_MAX];
    int checker_fd = open_checker(s, checker);
    struct lincheck_view lc;
    open_lincheck(s, &lc);
    const char *alloc;
    int alloc_fd = open_allocator(&alloc);
    bool ok = copy_submission(p, src_fd, src_is_dir, uid, gid, err, errlen);
    const char *root = SANDBOX_ROOT;
    if (ok && mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755") != 0)
        ok = fail(err, errlen, "cannot mount a tmpfs on", "/tmp");
    if (ok) {
        make_path(root);
        if (mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=256k,mode=0755") != 0)
            ok = fail(err, errlen, "cannot mount a tmpfs on", root);
    }
    ok = ok && fill_root(p, root, unit_fd, checker_fd, checker, alloc_fd, alloc, &lc, err, errlen);
    close_lincheck(&lc);
    if (checker_fd >= 0)
        close(checker_fd);
    if (alloc_fd >= 0)
        close(alloc_fd);
    close(unit_fd);
    return ok;
}

/* ---------- the worker and init ---------- */

/* The capabilities mdat keeps in the sandbox's user namespace as root:
 * to trace the program (and read its memory and descriptors in /proc),
 * to signal it, and to start it (or its build) as its user. */
static const int explorer_caps[] = {CAP_SYS_PTRACE, CAP_KILL, CAP_SETUID, CAP_SETGID, CAP_DAC_OVERRIDE,
                                    CAP_DAC_READ_SEARCH};

static bool keeps(int cap)
{
    for (size_t i = 0; i < sizeof explorer_caps / sizeof explorer_caps[0]; i++)
        if (explorer_caps[i] == cap)
            return true;
    return false;
}

/* As root: the worker becomes user 0 of its user namespace (another user
 * than the program's outside) with explorer_caps and nothing else, and
 * what it execs (a checker, a shell) gets none (SECBIT_NOROOT). */
static void become_explorer(void)
{
    if (setgroups(0, NULL) != 0 || setresgid(0, 0, 0) != 0 || setresuid(0, 0, 0) != 0)
        _exit(126);
    /* (while it still has CAP_SETPCAP) */
    if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED, 0, 0, 0) != 0)
        _exit(126);
    for (int cap = 0; cap <= CAP_LAST_CAP; cap++)
        if (!keeps(cap))
            prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct caps[2] = {{0}};
    for (size_t i = 0; i < sizeof explorer_caps / sizeof explorer_caps[0]; i++) {
        int cap = explorer_caps[i];
        caps[cap / 32].effective |= 1u << (cap % 32);
        caps[cap / 32].permitted |= 1u << (cap % 32);
    }
    if (syscall(SYS_capset, &hdr, caps) != 0)
        _exit(126);
    spawn_set_program_user(true, SANDBOX_NS_UID, SANDBOX_NS_UID);
}

static void drop_privileges(const struct sandbox_plan *p)
{
    if (here.as_root) {
        become_explorer();
    } else {
        /* The namespace's only user already; give up its capabilities. */
        for (int cap = 0; cap <= CAP_LAST_CAP; cap++)
            prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
        struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
        struct __user_cap_data_struct none[2] = {{0}};
        if (syscall(SYS_capset, &hdr, none) != 0)
            _exit(126);
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        _exit(126);
    /* Neither the program nor its build may read or write mdat's memory
     * (the unit's shared result is in it): spawn.c makes each program
     * dumpable only when its filter is in place. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

static void run_worker(const struct sandbox_plan *p)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    drop_privileges(p);
    execution_set_mdat_root(getpid());
    if (chdir(p->copy_dir) != 0)
        _exit(126);
    setenv("HOME", p->copy_dir, 1);
    setenv("TMPDIR", "/tmp", 1);
    _exit(p->work(p->ctx));
}

/* As root, by init (privileged in the parent user namespace): the
 * worker's user namespace maps 0 to mdat's user and SANDBOX_NS_UID to the
 * program's, nothing else. */
static bool map_worker(const struct sandbox_plan *p, pid_t worker)
{
    uid_t uid;
    gid_t gid;
    sandbox_ids(p, &uid, &gid);
    char map[96], path[64];
    snprintf(map, sizeof map, "0 %u 1\n%d %u 1\n", (unsigned)explorer_id(p), SANDBOX_NS_UID, (unsigned)uid);
    snprintf(path, sizeof path, "/proc/%d/uid_map", (int)worker);
    if (!write_file(path, map))
        return false;
    snprintf(map, sizeof map, "0 %u 1\n%d %u 1\n", (unsigned)explorer_id(p), SANDBOX_NS_UID, (unsigned)gid);
    snprintf(path, sizeof path, "/proc/%d/gid_map", (int)worker);
    return write_file(path, map);
}

/* Forks the worker; as root, in a user namespace of its own, mapped by
 * this process (init) before the worker goes on. */
static pid_t start_worker(const struct sandbox_plan *p)
{
    int made[2], mapped[2];
    if (here.as_root && (pipe2(made, O_CLOEXEC) != 0 || pipe2(mapped, O_CLOEXEC) != 0))
        return -1;
    pid_t worker = fork();
    if (worker < 0 || !here.as_root) {
        if (worker == 0)
            run_worker(p);
        return worker;
    }
    char c = 'u';
    if (worker == 0) {
        close(made[0]);
        close(mapped[1]);
        if (unshare(CLONE_NEWUSER) != 0 || write(made[1], &c, 1) != 1 || read(mapped[0], &c, 1) != 1)
            _exit(126);
        close(made[1]);
        close(mapped[0]);
        run_worker(p);
    }
    close(made[1]);
    close(mapped[0]);
    bool ok = read(made[0], &c, 1) == 1 && map_worker(p, worker) && write(mapped[1], &c, 1) == 1;
    close(made[0]);
    close(mapped[1]);
    return ok ? worker : -1;
}

/* init could not make the sandbox: why, to the grading child. */
static void init_failed(int report, const char *err)
{
    if (write(report, err, strlen(err)) < 0) {
        /* the status says it failed */
    }
    _exit(126);
}

/* PID 1 of the sandbox: /proc of its namespace, the new root, the worker,
 * and every orphan reaped. Its exit status is the worker's (see
 * grade_sandbox_run). */
static void run_init(const struct sandbox_plan *p, int report)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    char err[512];
    /* The program sees its own processes in /proc; as root, where mdat's
     * and init are another user's, not theirs (hidepid). */
    if ((here.optional_flags & CLONE_NEWPID) && mount("proc", SANDBOX_ROOT "/proc", "proc",
                                                      MS_NOSUID | MS_NODEV | MS_NOEXEC,
                                                      here.as_root ? "hidepid=2" : NULL) != 0) {
        fail(err, sizeof err, "cannot mount /proc on", SANDBOX_ROOT "/proc");
        init_failed(report, err);
    }
    if (!enter_root(SANDBOX_ROOT, err, sizeof err))
        init_failed(report, err);
    pid_t worker = start_worker(p);
    if (worker < 0) {
        fail(err, sizeof err, "cannot start the worker", "");
        init_failed(report, err);
    }
    close(report);
    for (;;) {
        int status;
        pid_t w = waitpid(-1, &status, __WALL | WUNTRACED);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            _exit(126);
        if (w != worker)
            continue;
        if (WIFSTOPPED(status)) {
            /* Only the submission stops mdat: end it all. */
            kill(worker, SIGKILL);
            _exit(SANDBOX_EXIT_STOPPED);
        }
        /* Leaving kills whatever is still in the namespace. */
        _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    }
}

/* ---------- copying out (in the grading child, after init ended) ---------- */

/* What the copy-out left behind: entries that are not regular files or
 * directories (links, fifos, sockets, devices: a teacher's tools would
 * follow or block on them), and files it could not write. */
struct copy_out {
    int skipped, failed;
    char skipped_list[400], failed_list[400];
};

static void note(char *list, size_t len, int count, const char *path, const char *why)
{
    size_t used = strlen(list);
    if (count <= 4)
        snprintf(list + used, len - used, "%s%s (%s)", used ? ", " : "", path, why);
    else if (count == 5)
        snprintf(list + used, len - used, ", ...");
}

static const char *kind_of(mode_t mode)
{
    return S_ISLNK(mode) ? "symbolic link" : S_ISFIFO(mode) ? "fifo" : S_ISSOCK(mode) ? "socket"
           : S_ISCHR(mode) || S_ISBLK(mode) ? "device" : "not a regular file";
}

/* One regular file, through a temporary name renamed at the end: a copy
 * that fails (a full disk) leaves no file cut short behind. */
static bool copy_file(int src_dir, int dst_dir, const char *name, const struct stat *st)
{
    int in = openat(src_dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (in < 0)
        return false;
    char tmp[NAME_MAX + 32];
    snprintf(tmp, sizeof tmp, ".%.200s.mdat-copy", name);
    unlinkat(dst_dir, tmp, 0);
    int out = openat(dst_dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st->st_mode & 0755);
    bool ok = out >= 0;
    if (ok) {
        char buf[65536];
        ssize_t n;
        while (ok && (n = read(in, buf, sizeof buf)) != 0)
            ok = n > 0 && write(out, buf, (size_t)n) == n;
        ok = ok && fchmod(out, st->st_mode & 0755) == 0;
        struct timespec times[2] = {st->st_atim, st->st_mtim};
        futimens(out, times);
        ok = close(out) == 0 && ok;
        ok = ok && renameat(dst_dir, tmp, dst_dir, name) == 0;
        if (!ok)
            unlinkat(dst_dir, tmp, 0);
    }
    close(in);
    return ok;
}

/* Copies directory src_dir's entries into dst_dir: directories and regular
 * files, nothing else (said in c); the grader owns the copies. */
static void copy_tree(int src_dir, int dst_dir, const char *where, int depth, struct copy_out *c)
{
    int fd = dup(src_dir);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || (depth == 0 && strcmp(name, ".tmp") == 0))
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s%s%s", where, where[0] ? "/" : "", name);
        struct stat st;
        if (fstatat(src_dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISDIR(st.st_mode) && depth < 64) {
            struct stat there;
            if (fstatat(dst_dir, name, &there, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(there.st_mode))
                unlinkat(dst_dir, name, 0);
            mkdirat(dst_dir, name, 0755);
            int s2 = openat(src_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            int d2 = openat(dst_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (s2 >= 0 && d2 >= 0)
                copy_tree(s2, d2, path, depth + 1, c);
            else
                note(c->failed_list, sizeof c->failed_list, ++c->failed, path, strerror(errno));
            if (s2 >= 0)
                close(s2);
            if (d2 >= 0)
                close(d2);
        } else if (S_ISREG(st.st_mode)) {
            if (!copy_file(src_dir, dst_dir, name, &st))
                note(c->failed_list, sizeof c->failed_list, ++c->failed, path, strerror(errno));
        } else {
            note(c->skipped_list, sizeof c->skipped_list, ++c->skipped, path, kind_of(st.st_mode));
        }
    }
    closedir(d);
}

/* The unit's tmpfs into the real output directory, and what did not go. */
static void copy_out(const struct sandbox_plan *p, int real_unit)
{
    int fd = open(p->unit_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    struct copy_out c = {0};
    copy_tree(fd, real_unit, "", 0, &c);
    close(fd);
    const char *name = strrchr(p->unit_dir, '/');
    name = name ? name + 1 : p->unit_dir;
    if (c.skipped)
        fprintf(stderr, "mdat grade: %s: not copied out of the sandbox, as not regular files: %d (%s)\n", name,
                c.skipped, c.skipped_list);
    if (c.failed)
        fprintf(stderr, "mdat grade: WARNING: %s: %d file%s of the grading could not be written to %s: %s\n",
                name, c.failed, c.failed == 1 ? "" : "s", p->unit_dir, c.failed_list);
}

int grade_sandbox_run(const struct sandbox_plan *p, char *err, size_t errlen)
{
    probe();
    const struct grade_settings *s = p->settings;
    /* Only stdin, stdout and stderr go in (the journal stays out). */
    syscall(SYS_close_range, 3u, ~0u, 0u);
    int real_unit = open(p->unit_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (real_unit < 0)
        return fail(err, errlen, "cannot open", p->unit_dir), -1;
    const char *given = s->submissions[p->submission];
    struct stat st;
    int src = open(given, O_RDONLY | O_CLOEXEC);
    if (src < 0 || fstat(src, &st) != 0)
        return fail(err, errlen, "cannot open", given), -1;
    int flags = CLONE_NEWNS | (here.optional_flags & (CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET));
    if (!here.as_root)
        flags |= CLONE_NEWUSER;
    uid_t grader_uid = getuid();
    gid_t grader_gid = getgid();
    if (unshare(flags) != 0)
        return fail(err, errlen, "cannot make namespaces", ""), -1;
    /* A process writes its own maps in /proc only while it is dumpable
     * (mdat is not): this one is out of the sandbox's sight. */
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    bool mapped = here.as_root || map_user(grader_uid, grader_gid, err, errlen);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if (!mapped)
        return -1;
    if (!build_view(p, src, S_ISDIR(st.st_mode), err, errlen))
        return -1;
    close(src);
    if ((here.optional_flags & CLONE_NEWPID) && unshare(CLONE_NEWPID) != 0)
        return fail(err, errlen, "cannot make a PID namespace", ""), -1;
    fflush(NULL);
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0)
        return fail(err, errlen, "cannot make a pipe", ""), -1;
    pid_t init = fork();
    if (init < 0)
        return fail(err, errlen, "cannot fork", ""), -1;
    if (init == 0) {
        close(report[0]);
        run_init(p, report[1]);
    }
    close(report[1]);
    int status;
    while (waitpid(init, &status, 0) < 0 && errno == EINTR)
        ;
    ssize_t said = read(report[0], err, errlen - 1);
    close(report[0]);
    if (said > 0) {
        err[said] = '\0';
        close(real_unit);
        return -1;
    }
    if (p->before_copy_out)
        p->before_copy_out(p->ctx);
    copy_out(p, real_unit);
    close(real_unit);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
