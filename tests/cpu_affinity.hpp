// Runs code as a process confined to one CPU would: on a thread of its own whose affinity mask is
// the first CPU of the calling thread's mask alone (a child process started there inherits it).
#pragma once
#include <catch2/catch.hpp>
#include <sched.h>

#include <thread>

namespace bslz4::test {

template <class F>
void on_one_cpu(F&& f) {
    std::thread t([&] {
        cpu_set_t mine;
        CPU_ZERO(&mine);
        REQUIRE(sched_getaffinity(0, sizeof mine, &mine) == 0);
        int first = 0;
        while (!CPU_ISSET(first, &mine)) ++first;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(first, &one);
        REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
        f();
    });
    t.join();
}

}  // namespace bslz4::test
