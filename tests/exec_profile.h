/* exec_profile.h - a profile of one exec component for the tests that run
 * it end to end and then model, plan or fly on what it measured
 * (test_run.c, test_model.c, test_plan.c, test_mission.c); defined in
 * harness.c. Its own header: other test files keep a static g_cfg of
 * their own. */
#ifndef PP_TESTS_EXEC_PROFILE_H
#define PP_TESTS_EXEC_PROFILE_H

/* The profile the last call wrote (g_cfg) and the results folder it is to
 * run into (g_out), both under the test's scratch folder. */
extern char g_cfg[512], g_out[512];

/* One exec component (sleep 0.03 s) with params text and extra groups
 * (battery, mission), written at g_cfg. */
void write_exec_profile_with(const char *params, const char *extra);

/* The same with no extra group. */
void write_exec_profile(const char *params);

#endif
