/* nvcc's phases with the host's and the device's front ends at once (phases.h). */
#define _GNU_SOURCE
#include "phases.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../src/util.h"

/* An assignment of the dry run's, NAME=VALUE with VALUE as it is: NAME's
 * length, or 0 when the line is not one. */
static size_t assigned_name(const char *line) {
    size_t n = 0;
    while (line[n] == '_' || (line[n] >= 'A' && line[n] <= 'Z') || (line[n] >= 'a' && line[n] <= 'z') ||
           (n > 0 && line[n] >= '0' && line[n] <= '9'))
        n++;
    return n > 0 && line[n] == '=' ? n : 0;
}

static bool starts_with_word(const char *line, const char *word) {
    size_t n = strlen(word);
    return !strncmp(line, word, n) && (line[n] == ' ' || line[n] == '\0');
}

char *phases_script(const char *dryrun, const char *module_id) {
    StrList env = {0}, cmds = {0};
    for (const char *p = dryrun; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > 3 && !strncmp(p, "#$ ", 3)) {
            char *line = xstrndup(p + 3, len - 3);
            size_t n = strlen(line);
            while (n && line[n - 1] == ' ') line[--n] = '\0';
            size_t name = assigned_name(line);
            static const char *const notation[] = {"INCLUDES", "SYSTEM_INCLUDES", "LIBRARIES"};
            bool noted = false; /* nvcc's own notation (INCLUDES="-I..." "..."), expanded in the commands */
            for (size_t k = 0; k < ARRAY_SIZE(notation); k++)
                noted |= strlen(notation[k]) == name && !strncmp(line, notation[k], name);
            if (name && !noted) { /* exported as it is, quoted: PATH may hold anything */
                StrBuf q = {0};
                sb_printf(&q, "export %.*s='", (int)name, line);
                for (const char *c = line + name + 1; *c; c++)
                    if (*c == '\'') sb_printf(&q, "'\\''");
                    else sb_printf(&q, "%c", *c);
                sb_printf(&q, "'");
                strlist_add(&env, q.buf);
                free(q.buf);
            } else if (!name && starts_with_word(line, "rm")) { /* nvcc's removals: of files that may not exist */
                char *forced = xprintf("rm -f%s", line + 2);
                strlist_add(&cmds, forced);
                free(forced);
            } else if (!name) {
                strlist_add(&cmds, line);
            }
            free(line);
        }
        p = end ? end + 1 : p + len;
    }
    /* host: the first preprocessing without __CUDA_ARCH__, then cudafe++; device: the
     * preprocessing with it up to the first compile (-c): cicc, ptxas, fatbinary, rm */
    int host_pp = -1, cudafe = -1, dev_pp = -1, rest = -1;
    for (int i = 0; i < cmds.count; i++) {
        const char *c = cmds.items[i];
        bool pp = strstr(c, " -E ") != NULL, arch = strstr(c, "-D__CUDA_ARCH__=") != NULL;
        if (host_pp < 0 && pp && !arch) host_pp = i;
        else if (cudafe < 0 && host_pp >= 0 && starts_with_word(c, "cudafe++")) cudafe = i;
        else if (dev_pp < 0 && pp && arch) dev_pp = i;
        else if (rest < 0 && dev_pp >= 0 && strstr(c, " -c ")) rest = i;
    }
    char *script = NULL;
    bool known = host_pp == 0 && cudafe == 1 && dev_pp == 2 && rest > dev_pp + 2 && strstr(cmds.items[dev_pp + 1], "cicc");
    for (int i = dev_pp + 1; known && i < rest; i++) /* the device chain: its programs and nothing else */
        known = strstr(cmds.items[i], "cicc") || starts_with_word(cmds.items[i], "ptxas") ||
                starts_with_word(cmds.items[i], "fatbinary") || starts_with_word(cmds.items[i], "rm");
    /* cudafe++ makes the id (--gen_module_id_file) into the file both read: it is made first instead */
    static const char gen[] = " --gen_module_id_file", named[] = "--module_id_file_name \"";
    char *gen_at = known ? strstr(cmds.items[cudafe], gen) : NULL, *file = known ? strstr(cmds.items[cudafe], named) : NULL;
    char *file_end = file ? strchr(file + strlen(named), '"') : NULL;
    known = gen_at && file_end && !strpbrk(module_id, "'\"\\ ");
    if (known) {
        memmove(gen_at, gen_at + strlen(gen), strlen(gen_at + strlen(gen)) + 1);
        file = strstr(cmds.items[cudafe], named) + strlen(named);
        file_end = strchr(file, '"');
        StrBuf b = {0};
        for (int i = 0; i < env.count; i++) sb_printf(&b, "%s\n", env.items[i]);
        /* through cat, which names a failed write's cause (a full disk is the machine's, not the file's) */
        sb_printf(&b, "printf '%%s' '%s' | cat >\"%.*s\" || exit 1\n", module_id, (int)(file_end - file), file);
        /* the host chain in the background, its messages as they come; the device's held in memory,
         * not in a file: on a full disk a file would lose the message that says so */
        sb_printf(&b, "{ %s && %s; } &\nhost=$!\n", cmds.items[host_pp], cmds.items[cudafe]);
        sb_printf(&b, "device_log=$( { %s", cmds.items[dev_pp]);
        for (int i = dev_pp + 1; i < rest; i++) sb_printf(&b, " && %s", cmds.items[i]);
        sb_printf(&b, "; } 2>&1 ); device=$?\n");
        sb_printf(&b, "wait $host || exit 1\n");
        sb_printf(&b, "[ -z \"$device_log\" ] || printf '%%s\\n' \"$device_log\"; [ $device = 0 ] || exit 1\n");
        for (int i = rest; i < cmds.count; i++) sb_printf(&b, "%s || exit 1\n", cmds.items[i]);
        script = b.buf;
    }
    strlist_free(&env);
    strlist_free(&cmds);
    return script;
}
