// RenderScript's time functions in invokables on the host, init() first.
#pragma version(1)
#pragma rs java_package_name(t)

static int64_t gStart;
static long long gNanos;
static float gDt, gDt2;
static int gYear, gYday;
static rs_time_t gSecs;

void init() { gStart = rsUptimeMillis(); }

void stamp() {
  gNanos = rsUptimeNanos();
  gDt = rsGetDt();
  gDt2 = rsGetDt();
  rs_time_t now;
  rsTime(&now);
  rs_tm tm;
  rs_tm *r = rsLocaltime(&tm, &now);
  gYear = r->tm_year + 1900;
  gYday = tm.tm_yday;
  gSecs = rsTime(0);
}

long RS_KERNEL report(uint32_t x) {
  switch (x) {
  case 0: return gStart;
  case 1: return gNanos;
  case 2: return (long)(gDt * 1e6f);
  case 3: return (long)(gDt2 * 1e6f);
  case 4: return gYear;
  case 5: return gYday;
  default: return gSecs;
  }
}

int RS_KERNEL clockInKernel(int in) { return in + (int)rsUptimeMillis(); }
