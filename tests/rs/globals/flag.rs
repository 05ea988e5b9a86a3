// Test kernels as Android's runtime tests write them: a kernel that sets a
// global flag when a check fails and an invokable that reports it, a
// non-atomic counter only tested for nonzero, a member of a global struct
// and a global written with the point where a condition held.  Threads
// race on plain writes: what is left is the last write of some thread.
#pragma version(1)
#pragma rs java_package_name(com.example.flag)

static bool failed = false;
int count;
int where = -1;
typedef struct Stats { int seen; float last; } Stats_t;
Stats_t stats;

static void fail(void) {
    failed = true;
}

// the check: every input is twice its x
int RS_KERNEL check(int in, uint32_t x) {
    if (in != (int)x * 2)
        fail();
    return in + 1;
}

void RS_KERNEL mark(int in, uint32_t x) {
    if (in > 100) {
        count++;
        where = x;
    }
    stats.seen = 1;
    stats.last = 0.5f;
}

// what launches before and after the marking launch read
int RS_KERNEL readCount(int in) {
    return count + in * 0;
}

void verify(void) {
    int d[4] = {failed ? 1 : 0, count, where, stats.seen};
    rsSendToClient(1, d, sizeof(d));
    failed = false;
}

// the check launched from an invokable run as a graph
void runCheck(rs_allocation in, rs_allocation out) {
    rsForEach(check, in, out);
}

// a global assigned after a launch that writes globals: refused
void runThenSet(rs_allocation in, rs_allocation out) {
    rsForEach(check, in, out);
    count = 0;
}
