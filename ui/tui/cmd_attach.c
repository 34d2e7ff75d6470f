/* cmd_attach: `mdat attach [options] [--] PROG [ARGS...]`, the interactive
 * TUI: a person chooses which thread runs each step. */
#include <stdio.h>

#include "supervisor/explore/session.h"
#include "supervisor/inspect/foreign_livelock.h"
#include "ui/cli/cli.h"
#include "ui/cli/commands.h"
#include "ui/tui/tui_frontend.h"
#include "ui/live/tui_live.h"
#include "ui/term/tui_term.h"
#include "ui/tui/tui_theme.h"
#include "help/mdat-attach.h"  /* generated from docs/man/mdat-attach.1.scd */

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_WATCHES = 16 };

void print_attach_usage(FILE *f)
{
    fputs(mdat_attach_help, f);
}

static int usage_error(const char *fmt, const char *arg)
{
    return cli_usage_error("attach", fmt, arg);
}

/* -p PID: a running process, read and let go (ui/cli/cmd_attach_pid.c),
 * or watched live (ui/live/tui_live.c). */
static int attach_to_process(const char *pid, bool print, bool json, int watch_ms, bool more)
{
    if (!pid)
        return usage_error("%s", "--print and --json go with -p PID");
    if (pid[0] == '-')  /* "-p --print": the option took the next one as its value */
        return usage_error("-p wants a process id (a positive number), not \"%s\"", pid);
    if (more)
        return usage_error("%s", "-p PID takes only --print or --json and --livelock (no program, no other option)");
    if (print && json)
        return usage_error("%s", "give --print or --json, not both");
    if (!print && !json)
        return tui_live_run(pid, watch_ms);
    return cmd_attach_pid(pid, json, watch_ms);
}

int cmd_attach(int argc, char **argv)
{
    enum { OPT_REPLAY = 256, OPT_DEMO, OPT_DELAY, OPT_WATCH, OPT_THEME, OPT_MAX_STEPS, OPT_INVARIANT, OPT_RACES,
           OPT_MEMORY_MODEL, OPT_PRINT, OPT_JSON, OPT_LIVELOCK };
    static const struct option longopts[] = {
        {"replay", required_argument, NULL, OPT_REPLAY},
        {"demo", required_argument, NULL, OPT_DEMO},
        {"delay", required_argument, NULL, OPT_DELAY},
        {"watch", required_argument, NULL, OPT_WATCH},
        {"invariant", required_argument, NULL, OPT_INVARIANT},
        {"races", required_argument, NULL, OPT_RACES},
        {"memory-model", required_argument, NULL, OPT_MEMORY_MODEL},
        {"theme", required_argument, NULL, OPT_THEME},
        {"max-steps", required_argument, NULL, OPT_MAX_STEPS},
        {"seed", required_argument, NULL, 's'},
        {"pid", required_argument, NULL, 'p'},
        {"print", no_argument, NULL, OPT_PRINT},
        {"json", no_argument, NULL, OPT_JSON},
        {"livelock", required_argument, NULL, OPT_LIVELOCK},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    const char *replay = NULL, *demo = NULL, *theme_name = NULL, *pid = NULL;
    bool print = false, json = false, other_option = false, livelock_given = false;
    int watch_ms = FOREIGN_LIVELOCK_DEFAULT_MS;
    const char *watches[MAX_WATCHES];
    int n_watches = 0;
    const char *invariants[MAX_WATCHES];
    int n_invariants = 0;
    double delay = 1.0;
    bool delay_given = false;
    struct session_options sopt = {0};
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+s:p:h", longopts, NULL)) != -1) {
        other_option = other_option ||
                       (c != 'p' && c != OPT_PRINT && c != OPT_JSON && c != OPT_LIVELOCK && c != 'h' && c != '?');
        switch (c) {
        case 'p':
            pid = optarg;
            break;
        case OPT_PRINT:
            print = true;
            break;
        case OPT_JSON:
            json = true;
            break;
        case OPT_LIVELOCK: {
            char *end;
            double sec = strtod(optarg, &end);
            if (end == optarg || *end || !(sec >= 0) || sec > 60)
                return usage_error("--livelock wants seconds from 0 (off) to 60, not \"%s\"", optarg);
            watch_ms = (int)(sec * 1000 + 0.5);
            livelock_given = true;
            break;
        }
        case OPT_REPLAY:
            replay = optarg;
            break;
        case OPT_DEMO:
            demo = optarg;
            break;
        case OPT_DELAY: {
            char *end;
            delay = strtod(optarg, &end);
            if (*end || !(delay >= 0) || delay > 3600)
                return usage_error("--delay wants seconds from 0 to 3600, not \"%s\"", optarg);
            delay_given = true;
            break;
        }
        case OPT_WATCH:
            if (n_watches == MAX_WATCHES)
                return usage_error("at most %s --watch options", "16");
            watches[n_watches++] = optarg;
            break;
        case OPT_INVARIANT:
            if (n_invariants == MAX_WATCHES)
                return usage_error("at most %s --invariant options", "16");
            invariants[n_invariants++] = optarg;
            sopt.detect_given = true;
            break;
        case OPT_RACES:
            /* warn would print over the screen: a race either stops the
             * execution or is not looked for. */
            if (!race_mode_from_name(optarg, &sopt.detect.races) || sopt.detect.races == RACES_WARN)
                return usage_error("--races wants fail or off, not \"%s\"", optarg);
            sopt.detect_given = true;
            break;
        case OPT_MEMORY_MODEL:
            if (strcmp(optarg, "sc") != 0 && strcmp(optarg, "tso") != 0)
                return usage_error("--memory-model wants sc or tso, not \"%s\"", optarg);
            sopt.tso = strcmp(optarg, "tso") == 0;
            sopt.memory_model_given = true;
            break;
        case OPT_THEME:
            if (!tui_theme_by_name(optarg))
                return usage_error("unknown theme \"%s\" (dark, light, mono or projector)", optarg);
            theme_name = optarg;
            break;
        case OPT_MAX_STEPS:
            if (!cli_parse_u64(optarg, &sopt.max_steps) || sopt.max_steps == 0)
                return usage_error("--max-steps wants a positive number, not \"%s\"", optarg);
            break;
        case 's':
            if (!cli_parse_u64(optarg, &sopt.seed))
                return usage_error("--seed wants a non-negative number, not \"%s\"", optarg);
            break;
        case 'h':
            print_attach_usage(stdout);
            return EXIT_NO_FAILURE;
        default:
            return cli_bad_option("attach", optopt, argv[optind - 1]);
        }
    }
    if (!pid && livelock_given && !print && !json)
        return usage_error("%s", "--livelock goes with -p PID");
    if (pid || print || json || livelock_given)
        return attach_to_process(pid, print, json, watch_ms, other_option || optind < argc);
    if (replay && demo)
        return usage_error("%s", "give --replay or --demo, not both");
    if (delay_given && !demo)
        return usage_error("%s", "--delay goes with --demo FILE");
    if (optind >= argc && !replay && !demo) {
        fprintf(stderr, "mdat attach: no program given (usage: mdat attach [options] [--] PROG [ARGS...])\n");
        return EXIT_USAGE;
    }
    if (sopt.memory_model_given && (replay || demo)) {
        /* A schedule replays only under the model it was recorded with. */
        struct schedule sched;
        char why[600];
        if (schedule_read(replay ? replay : demo, &sched, why, sizeof why)) {
            bool differs = sched.tso != sopt.tso;
            schedule_free(&sched);
            snprintf(why, sizeof why, "%s was recorded with --memory-model %s and replays only under it: leave out "
                     "--memory-model %s", replay ? replay : demo, sopt.tso ? "sc" : "tso", sopt.tso ? "tso" : "sc");
            if (differs)
                return usage_error("%s", why);
        }
    }
    sopt.argv = optind < argc ? argv + optind : NULL;
    sopt.argc = argc - optind;
    sopt.replay_file = replay ? replay : demo;
    sopt.watches = watches;
    sopt.n_watches = n_watches;
    sopt.detect.invariants = invariants;
    sopt.detect.n_invariants = n_invariants;

    char err[600];
    struct session *session = session_open(&sopt, err, sizeof err);
    if (!session) {
        fprintf(stderr, "mdat: %s\n", err);
        return EXIT_CANNOT_RUN;
    }
    if (!tui_term_open(err, sizeof err)) {
        fprintf(stderr, "mdat attach: %s\n", err);
        session_close(session);
        return EXIT_CANNOT_RUN;
    }
    struct tui_frontend_options fopt = {
        .theme = tui_theme_initial(theme_name, getenv("NO_COLOR"), getenv("TERM")),
        .demo = demo != NULL,
        .delay_sec = delay,
    };
    struct tui_frontend *frontend = tui_frontend_new(session, &fopt);
    bool ok = frontend && session_run(session, tui_frontend_iface(frontend), err, sizeof err);
    if (!frontend)
        snprintf(err, sizeof err, "out of memory");
    tui_frontend_free(frontend);
    tui_term_close();
    session_close(session);
    if (!ok) {
        fprintf(stderr, "mdat: %s\n", err);
        return EXIT_CANNOT_RUN;
    }
    return EXIT_NO_FAILURE;
}
