// What the process writes on its stderr (file descriptor 2) while a StderrCapture lives: for
// the tests of what the library prints, or must not print.
#pragma once
#include <unistd.h>

#include <cstdio>
#include <string>

namespace bslz4::test {

class StderrCapture {
public:
    StderrCapture() : file_(std::tmpfile()) {
        std::fflush(stderr);
        saved_ = dup(2);
        dup2(fileno(file_), 2);
    }
    ~StderrCapture() {
        restore();
        std::fclose(file_);
    }
    std::string text() {
        restore();
        std::string out;
        std::rewind(file_);
        for (int ch; (ch = std::fgetc(file_)) != EOF;) out += static_cast<char>(ch);
        return out;
    }

private:
    void restore() {
        if (saved_ < 0) return;
        std::fflush(stderr);
        dup2(saved_, 2);
        close(saved_);
        saved_ = -1;
    }
    std::FILE* file_;
    int saved_ = -1;
};

}  // namespace bslz4::test
