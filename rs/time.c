/* rs/time.c - RenderScript's time functions (rs_time.rsh) for invokables
 * on the host: rsUptimeMillis, rsUptimeNanos, rsGetDt, rsTime and
 * rsLocaltime, with the rs_time_t and rs_tm types.  The host object runs
 * in the library's process, so they read the system's clocks directly;
 * rsGetDt keeps its last time in the script object (rs-host/host.c passes it).
 * Kernels have no clock: a kernel reaching these is refused at the call. */
#include "rs_impl.h"

#include <string.h>
#include <time.h>

/* rs_time_t and rs_tm, which kernels of both dialects have too (a
 * global of type rs_time_t lives in the globals block): defined once. */
#define FGR_TIME_TYPES \
  "#ifndef FGK_RS_TIME_TYPES\n#define FGK_RS_TIME_TYPES 1\n" \
  "typedef long rs_time_t;\n" \
  "typedef struct {\n" \
  "  int tm_sec, tm_min, tm_hour, tm_mday, tm_mon, tm_year, tm_wday,\n" \
  "      tm_yday, tm_isdst;\n" \
  "} rs_tm;\n#endif\n"

const char fgr_time_types[] = FGR_TIME_TYPES;

const char fgr_time_host[] =
  "#include <time.h>\n"
  FGR_TIME_TYPES
  "static __attribute__((unused)) long long fgk_rs_now_ns(void) {\n"
  "  struct timespec t;\n  clock_gettime(CLOCK_MONOTONIC, &t);\n"
  "  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec; }\n"
  "FGK_RSH long long rsUptimeNanos(void) { return fgk_rs_now_ns(); }\n"
  "FGK_RSH long long rsUptimeMillis(void) { return fgk_rs_now_ns() / "
  "1000000; }\n"
  /* seconds since the script's last call of it (its creation, first) */
  "FGK_RSH float rsGetDt(void) {\n"
  "  long long now = fgk_rs_now_ns(), last = *fgk_rs_h->dt_last;\n"
  "  *fgk_rs_h->dt_last = now;\n"
  "  return (float)((double)(now - last) * 1e-9); }\n"
  "FGK_RSH rs_time_t rsTime(rs_time_t *timer) {\n"
  "  rs_time_t t = (rs_time_t)time(0);\n"
  "  if (timer) *timer = t;\n  return t; }\n"
  "FGK_RSH rs_tm *rsLocaltime(rs_tm *local, const rs_time_t *timer) {\n"
  "  if (!local || !timer) return 0;\n"
  "  time_t t = (time_t)*timer;\n  struct tm m;\n"
  "  if (!localtime_r(&t, &m)) return 0;\n"
  "  local->tm_sec = m.tm_sec; local->tm_min = m.tm_min;\n"
  "  local->tm_hour = m.tm_hour; local->tm_mday = m.tm_mday;\n"
  "  local->tm_mon = m.tm_mon; local->tm_year = m.tm_year;\n"
  "  local->tm_wday = m.tm_wday; local->tm_yday = m.tm_yday;\n"
  "  local->tm_isdst = m.tm_isdst;\n  return local; }\n";

bool fgr_time_has(const char *p, int len) {
  static const char *const names[] = {"rsUptimeMillis", "rsUptimeNanos",
                                      "rsGetDt", "rsTime", "rsLocaltime",
                                      NULL};
  for (int k = 0; names[k]; k++)
    if ((int)strlen(names[k]) == len && !memcmp(names[k], p, (size_t)len))
      return true;
  return false;
}

long long fgr_time_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}
