/* Configuration files (src/config/config.c) that are not one: a directory
 * made libconfig's scanner call exit(2) (ending a Python interpreter with
 * it, issue 46 item 3); a FIFO blocked; a huge file was read whole. Each is
 * refused before libconfig sees it, with the file named, by the library
 * and so by every command that reads a configuration. */
#include "harness.h"

#include "src/config/config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

void test_config_refuses_what_is_not_a_file(void);
void test_config_refuses_what_is_not_a_file(void)
{
    const char *dir = test_tmpdir(), *fifo = test_path("fifo.cfg"), *big = test_path("big.cfg");
    pp_config *cfg = (pp_config *)1;
    int fd;

    test_log_clear();
    CHECK_INT(pp_config_load(dir, &cfg), -EINVAL);
    CHECK(cfg == NULL);
    CHECK_CONTAINS(test_log(), dir);
    CHECK_CONTAINS(test_log(), "not a regular file (a directory)");
    CHECK_INT(mkfifo(fifo, 0600), 0);
    test_log_clear();
    CHECK_INT(pp_config_load(fifo, &cfg), -EINVAL); /* never blocks on the FIFO */
    CHECK_CONTAINS(test_log(), "fifo.cfg: not a regular file (a FIFO)");
    fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)17 << 20) == 0); /* sparse: 17 MiB of nothing */
    close(fd);
    test_log_clear();
    CHECK_INT(pp_config_load(big, &cfg), -EFBIG);
    CHECK_CONTAINS(test_log(), "big.cfg: 17825792 bytes: a configuration file is at most");
    test_log_clear();
    CHECK_INT(pp_config_load(test_path("absent.cfg"), &cfg), -ENOENT);
    CHECK_CONTAINS(test_log(), "absent.cfg: cannot open");
}

/* The commands that read a configuration, given a directory: an error
 * naming it and exit 2 from the command, not libconfig's bare exit. */
void test_config_dir_refused_by_the_commands(void);
void test_config_dir_refused_by_the_commands(void)
{
    const char *dir = test_tmpdir(), *flight = fixture("governor/flight-30w.csv");
    char *err = NULL;
    int rc;

    rc = run_powprof(NULL, &err, "battery", flight, "-c", dir, NULL);
    CHECK(rc != 0 && rc < 128);
    CHECK_CONTAINS(err, dir);
    CHECK_CONTAINS(err, "not a regular file (a directory)");
    free(err);
    rc = run_powprof(NULL, &err, "profile", dir, NULL);
    CHECK(rc != 0 && rc < 128);
    CHECK_CONTAINS(err, "not a regular file (a directory)");
    free(err);
    rc = run_powprof(NULL, &err, "plan", dir, "--mission", dir, NULL);
    CHECK(rc != 0 && rc < 128);
    CHECK_CONTAINS(err, "not a regular file");
    free(err);
}
