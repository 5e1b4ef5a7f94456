#define _GNU_SOURCE
#include "workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

/* A temp file is removed only this long after its last write, even when its
 * pid is dead: the pid may belong to a new process by now (or the workspace
 * is shared with another machine, whose processes kill() cannot see). */
enum { STALE_AFTER_S = 5 * 60 };

/* The pid in a temp file's name: STEM.tmp.PID (write_file_atomic,
 * toolchain_build_cached) or STEM.PID.tmp (grader's compile_student), STEM
 * not empty; *stem its length. 0 when the name is neither. */
static pid_t temp_pid(const char *name, size_t *stem) {
    const char *dot = strrchr(name, '.'), *digits, *end;
    if (!dot || dot == name) return 0;
    if (!strcmp(dot, ".tmp")) {
        end = dot;
        for (digits = dot; digits > name && digits[-1] != '.'; digits--) continue;
        if (digits - 1 <= name) return 0;
        *stem = (size_t)(digits - 1 - name);
    } else {
        if (dot - name <= 4 || memcmp(dot - 4, ".tmp", 4)) return 0;
        digits = dot + 1, end = dot + strlen(dot);
        *stem = (size_t)(dot - 4 - name);
    }
    if (end == digits || end - digits > 9) return 0;
    pid_t pid = 0;
    for (const char *c = digits; c < end; c++) {
        if (*c < '0' || *c > '9') return 0;
        pid = pid * 10 + (*c - '0');
    }
    return pid;
}

/* Removes the temp files in dir (when only is set: only ONLY.tmp.PID) that a
 * process killed before its rename left: regular files, not written for
 * STALE_AFTER_S, whose pid is no process. Best effort: a file left is only
 * clutter. */
static void remove_stale_temps(const char *dir, const char *only) {
    DIR *d = opendir(dir);
    if (!d) return;
    time_t now = time(NULL);
    for (struct dirent *de; (de = readdir(d));) {
        size_t stem;
        pid_t pid = temp_pid(de->d_name, &stem);
        if (pid <= 0) continue;
        if (only && (stem != strlen(only) || strncmp(de->d_name, only, stem) || strncmp(de->d_name + stem, ".tmp.", 5)))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode)) continue;
        if (now - st.st_mtime < STALE_AFTER_S) continue;
        if (kill(pid, 0) == 0 || errno != ESRCH) continue; /* EPERM: alive, another user's */
        unlinkat(dirfd(d), de->d_name, 0);
    }
    closedir(d);
}

/* Which course a workspace holds: the course's id in ROOT/.course-id. A
 * workspace is one course's, as its files are named by the course's
 * exercises and its progress by their ids: opened by another course it would
 * show that course's progress and files as this one's. A workspace from
 * before the file (or a new one) takes the course that opens it. */
static int claim_workspace(const Course *c, const Workspace *w) {
    char *path = path_join(w->root, ".course-id");
    size_t len = 0;
    struct stat st;
    bool there = lstat(path, &st) == 0;
    /* not through a link: its first line would be shown as the course's id */
    char *held = there ? read_regular_file(path, 4096, &len) : NULL;
    int rc = 0;
    if (held) {
        held[strcspn(held, "\n")] = '\0';
        if (strcmp(held, c->id))
            rc = error("the workspace '%s' holds course '%s' (its .course-id), not '%s': give course '%s' a "
                       "workspace of its own (--workspace DIR; without it and GPUCOURSE_WORKSPACE: %s)",
                       w->root, held, c->id, c->id,
                       strcmp(c->id, COURSE_BUNDLED_ID) ? "~/gpucourse/courses/ID" : "~/gpucourse");
    } else if (there) {
        rc = -1; /* said by read_regular_file (a link, a pipe, too large) */
    } else {
        char *text = xprintf("%s\n", c->id);
        rc = write_file_atomic(path, text, strlen(text));
        free(text);
    }
    free(held);
    free(path);
    return rc;
}

char *workspace_default_root(const char *id) {
    const char *home = getenv("HOME");
    if (!home || !*home) return NULL;
    /* one per course: the course that comes with gpucourse where it always was */
    if (!strcmp(id, COURSE_BUNDLED_ID)) return xprintf("%s/gpucourse", home);
    return xprintf("%s/gpucourse/courses/%s", home, id);
}

/* A directory of the workspace's own (exercises/, .build/, backups/), when
 * it exists: it must lie in the workspace, links followed. One linked out of
 * it would have gpucourse write there (stubs, builds, backups), a place
 * chosen by whoever made the link: a repository that a classroom CI grades. */
static int own_dir(const Workspace *w, const char *dir) {
    struct stat st;
    if (lstat(dir, &st) != 0 || path_within(dir, w->root)) return 0; /* absent: made below, in the workspace */
    char *real = realpath(dir, NULL); /* a file there instead is said where it is written (cannot write in ...) */
    int rc = error("'%s' is a link to %s, outside the workspace '%s': gpucourse writes only in the workspace "
                   "(remove the link)",
                   dir, real ? real : "nothing that exists", w->root);
    free(real);
    return rc;
}

int workspace_open(const Course *c, const char *option, Workspace *w) {
    memset(w, 0, sizeof *w);
    const char *env = getenv("GPUCOURSE_WORKSPACE");
    if (option) w->root = xstrdup(option);
    else if (env && *env) w->root = xstrdup(env);
    else if (!(w->root = workspace_default_root(c->id)))
        return error("no workspace: HOME is not set; give --workspace DIR");
    bool is_new = !dir_exists(w->root);
    w->progress = path_join(w->root, "progress.yaml");
    w->build = path_join(w->root, ".build");
    w->backups = path_join(w->root, "backups");
    char *exercises = path_join(w->root, "exercises");
    int rc = make_dirs(w->root);
    if (rc == 0) rc = own_dir(w, exercises);
    if (rc == 0) rc = own_dir(w, w->build);
    if (rc == 0) rc = own_dir(w, w->backups);
    if (rc == 0) rc = make_dirs(exercises);
    if (rc == 0) rc = claim_workspace(c, w);
    if (rc == 0 && is_new && !option && !(env && *env) && strcmp(c->id, COURSE_BUNDLED_ID))
        fprintf(stderr, "gpucourse: course '%s': a new workspace, %s\n", c->id, w->root);
    if (rc == 0) rc = make_dirs(w->build);
    for (int i = 0; rc == 0 && i < c->nexercises; i++) {
        char *mine = workspace_exercise_path(w, &c->exercises[i]);
        if (access(mine, F_OK) != 0) {
            char *stub = course_stub_path(c, &c->exercises[i]);
            rc = copy_file(stub, mine);
            free(stub);
        }
        free(mine);
    }
    free(exercises);
    if (rc == 0) {
        remove_stale_temps(w->build, NULL);
        char *objects = path_join(w->build, "harness-obj"); /* the harness's shared objects (grade_build_course_parts) */
        remove_stale_temps(objects, NULL);
        free(objects);
        char *progress = progress_target(w->progress); /* its temp files are beside the link's target */
        if (progress) {
            char *dir = path_dirname(progress), *slash = strrchr(progress, '/');
            remove_stale_temps(dir, slash ? slash + 1 : progress);
            free(dir);
        }
        free(progress);
    }
    return rc;
}

void workspace_free(Workspace *w) {
    free(w->root);
    free(w->progress);
    free(w->build);
    free(w->backups);
    memset(w, 0, sizeof *w);
}

char *workspace_exercise_path(const Workspace *w, const Exercise *e) {
    return xprintf("%s/exercises/%s", w->root, e->file);
}

/* Whether two files hold the same bytes: a file that is still the stub has
 * nothing of the student's to keep (two resets, one backup). */
static bool same_text(const char *a, const char *b) {
    size_t na = 0, nb = 0;
    char *ta = read_file_max(a, 1 << 20, &na), *tb = read_file_max(b, 1 << 20, &nb); /* a stub is small */
    bool same = ta && tb && na == nb && memcmp(ta, tb, na) == 0;
    free(ta);
    free(tb);
    return same;
}

int workspace_reset(const Course *c, const Workspace *w, const Exercise *e, char **backup) {
    *backup = NULL;
    char *mine = workspace_exercise_path(w, e);
    char *stub = course_stub_path(c, e);
    int rc = 0;
    struct stat st;
    if (stat(mine, &st) == 0 && S_ISREG(st.st_mode) && !same_text(mine, stub)) {
        char *prefix = xprintf("%s/%s.", w->backups, e->file);
        char *target = make_dirs(w->backups) == 0 ? create_stamped_file(prefix) : NULL;
        /* the student's mode, set while it is still empty: a 0600 file is not backed up readable by others */
        if (target && chmod(target, st.st_mode & 0777) < 0) rc = error("cannot write '%s': %s", target, strerror(errno));
        if (rc == 0) rc = target ? copy_file(mine, target) : -1; /* onto the name just taken; copy_file keeps its mode */
        if (rc == 0) {
            *backup = target;
        } else if (target) {
            unlink(target);
            free(target);
        }
        free(prefix);
    }
    /* only once the backup is safely written */
    if (rc == 0) rc = copy_file(stub, mine);
    free(mine);
    free(stub);
    return rc;
}
