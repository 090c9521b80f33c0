# Cases of tests/hostile/campaign.sh (sourced): the issue's reproducers first,
# then new hostile inputs by surface. Each call is one input.

# --- Issue 19's reproducers ---------------------------------------------------
con "i19 pattern depth" "EVAL \"return string.find('aaaa', string.rep('a*', 100000))\" 0"
con "i19 pattern backtrack" "EVAL \"return string.find(string.rep('a',3000), '.-.-.-.-b')\" 0"
con "i19 rep 2^31" "EVAL \"for i=1,10 do string.rep('',2147483647) end\" 0"
con "i19 xpcall handler" "EVAL \"return xpcall(function() while true do end end, function() while true do end end)\" 0"
con "i19 KEYS glob" "SET $(printf 'a%.0s' {1..70}) v" "KEYS *a*a*a*a*a*a*a*b"
con "i19 HSET 100k" "EVAL \"local t={} for i=1,100000 do t[#t+1]='f'..i t[#t+1]='v' end return redis.call('HSET','h',unpack(t))\" 0"
con "i19 APPEND 10MB loop" "EVAL \"local s=string.rep('x',10000000) for i=1,1000 do redis.call('APPEND','k',s) end\" 0"
con "i19 .advance max" ".advance 9223372036854775807" "GET k"
for i in $(seq 1 120); do echo "SCRIPT LOAD \"return $i\""; done >"$W/loads"
con_raw "i19 SCRIPT LOAD flood (sample)" "$W/loads"
printf 'name = "loopy"\nfunction acquire() while true do end end\nfunction release() return true end\n' >"$W/loopy.lua"
cli "i19 looping variant run" run loopy --variant "$W/loopy.lua"
cli "i19 looping variant check" check loopy --variant "$W/loopy.lua" --runs 50
printf 'name = "deep"\nfunction acquire() return string.find("aaaa", string.rep("a*", 100000)) ~= nil end\nfunction release() return true end\n' >"$W/deep.lua"
cli "i19 deep-pattern variant run" run deep --variant "$W/deep.lua"
cli "i19 deep-pattern variant check" check deep --variant "$W/deep.lua" --runs 20
rm -f "$W/fifo" && mkfifo "$W/fifo"
cli "i19 fifo --svg" replay 'set-nx-px clients=1 iterations=1' --svg "$W/fifo"
cli "i19 fifo --trace-json" replay 'set-nx-px clients=1 iterations=1' --trace-json "$W/fifo"
cli "i19 fifo --save" check set-nx-px --runs 50 --save "$W/fifo"
for w in iterations=4294967295 nested=4294967295 horizon=2305843009s clients=64 iterations=0; do
  cli "i19 word $w" replay "set-nx-px $w"
done
cli "i19 --variant /dev/zero" run x --variant /dev/zero
cli "i19 list-runs huge" check set-nx-px --list-runs --runs 100000000
cli "i19 jump by -1800000000s" replay 'set-nx-px clients=1 iterations=30 faults=[jump redis @100ms by -1800000000s]'
cli "i19 four jumps +2305843009s" replay 'set-nx-px faults=[jump A @1ms by +2305843009s, jump A @2ms by +2305843009s, jump A @3ms by +2305843009s, jump A @4ms by +2305843009s]'
for a in set-nx-px watchdog fenced fair reentrant getset redlock; do
  cli "i19 check $a --lease 1ms" check "$a" --lease 1ms --runs 20
done
cli "i19 --save /dev/full" check set-nx-px --runs 200 --save /dev/full
cli "i19 --svg /proc/x after work" check set-nx-px --runs 200 --svg /proc/x
cli "i19 trace-json + bad svg" replay 'set-nx-px clients=1 iterations=1' --trace-json "$W/out.json" --svg /proc/x
[[ -e $W/out.json ]] && echo "BAD  out.json left behind" && bad=$((bad + 1))
cli "i19 same path twice" replay 'set-nx-px clients=1 iterations=1' --trace-json "$W/same" --svg "$W/same"
printf '# regressions\nset-nx-px seed=1 clients=1 iterations=1' >"$W/nonl.txt"
cli "i19 --save after no newline" check set-nx-px --runs 200 --save "$W/nonl.txt"
cli "i19 replay that file" replay "$W/nonl.txt"
cli "i19 --seed 2^74" run set-nx-px --seed 99999999999999999999999
cli "i19 --seed abc" run set-nx-px --seed abc
cli "i19 duplicate words" replay 'set-nx-px clients=2 clients=3'
printf 'name = "a"\nname = "b"\nfunction acquire() return true end\nfunction release() return true end\n' >"$W/twoname.lua"
cli "i19 two names" run a --variant "$W/twoname.lua"
printf '\xef\xbb\xbfset-nx-px clients=1 iterations=1\n' >"$W/bom.txt"
cli "i19 BOM scenario file" replay "$W/bom.txt"
cli "i19 100KB word" replay "set-nx-px $(head -c 100000 /dev/zero | tr '\0' x)"
cli "i19 control bytes" replay "$(printf 'set-nx-px \033[31mred\x07\x01')"
cli "i19 --faults ''" check set-nx-px --faults '' --runs 10
cli "i19 --only F01,F01" catalogue --only F01,F01 --budget 50

# --- Console lines: new ---------------------------------------------------------
con "empty lines" "" "" "   " ""
con "unterminated quote" 'SET "abc 1'
con "unterminated single" "SET 'abc 1"
con "quote then junk" 'SET "a"b c'
con "escape at end" 'SET "a\' 
con "hex escape bad" 'SET "\xZZ" 1'
con "hex escape ok" 'SET "\x00\xff" 1' 'GET "\x00\xff"'
con "NUL byte line" "$(printf 'SET a \001\002')"
con "long line 1MB" "SET k $(head -c 1000000 /dev/zero | tr '\0' y)"
con "many args" "DEL $(seq -s ' ' 1 50000)"
con "unknown command" "FOOBAR 1 2 3"
con "lowercase mixed" "sEt a 1" "gEt a"
con "SET bad PX" "SET a 1 PX -1" "SET a 1 PX 0" "SET a 1 PX 9223372036854775807" "SET a 1 EX 9223372036854775807"
con "SET PX overflow" "SET a 1 PX 99999999999999999999" "SET a 1 EX 9223372036854776"
con "SET conflicting" "SET a 1 NX XX" "SET a 1 EX 1 PX 1" "SET a 1 KEEPTTL EX 1"
con "PEXPIRE extremes" "SET a 1" "PEXPIRE a 9223372036854775807" "PTTL a" "EXPIRE a 9223372036854775807" "EXPIRE a -9223372036854775808" "TTL a"
con "PEXPIREAT extremes" "SET a 1" "PEXPIREAT a 9223372036854775807" "EXPIREAT a 9223372036854775807" "PTTL a"
con "INCR overflow" "SET n 9223372036854775807" "INCR n" "DECRBY n 9223372036854775807" "DECRBY n -9223372036854775808" "INCRBY n -9223372036854775808"
con "INCRBYFLOAT odd" "INCRBYFLOAT f inf" "INCRBYFLOAT f nan" "INCRBYFLOAT f 1e308" "INCRBYFLOAT f 1e308" "INCRBYFLOAT f -1e400"
con "HINCRBY overflow" "HINCRBY h f 9223372036854775807" "HINCRBY h f 1" "HINCRBYFLOAT h g 1e308" "HINCRBYFLOAT h g 1e308"
con "SETRANGE huge" "SETRANGE s 536870911 x" "SETRANGE s 4294967295 x" "SETRANGE s -1 x" "STRLEN s"
con "GETRANGE extremes" "SET s hello" "GETRANGE s -9223372036854775808 9223372036854775807" "GETRANGE s 9223372036854775807 -9223372036854775808"
con "APPEND grows" "SET s $(head -c 100000 /dev/zero | tr '\0' a)" $(for i in $(seq 1 50); do echo "APPEND s xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"; done)
con "LRANGE extremes" "RPUSH l a b c" "LRANGE l -9223372036854775808 9223372036854775807" "LINDEX l -9223372036854775808" "LSET l 9223372036854775807 x"
con "LPOP counts" "RPUSH l a" "LPOP l -1" "LPOP l 0" "LPOP l 9223372036854775807" "RPOP l 99999999999999999999"
con "LPUSH many" "LPUSH l $(seq -s ' ' 1 100000)" "LLEN l" "LRANGE l 0 5"
con "HSET many" "HSET h $(seq -s ' ' 1 200000)" "HLEN h" "HGETALL nope"
con "HSET odd args" "HSET h a" "HSET h a b c" "HMSET h" "HGET h"
con "KEYS stars" "SET $(head -c 200 /dev/zero | tr '\0' a) 1" "KEYS $(for i in $(seq 1 100); do printf '*a'; done)b"
con "KEYS brackets" "SET a 1" "KEYS [" "KEYS [a-" "KEYS [^" "KEYS [z-a]" "KEYS \\" "KEYS [[[[[[[[[[[[[[[[[[[["
con "SCAN odd" "SCAN -1" "SCAN 18446744073709551616" "SCAN 0 COUNT 0" "SCAN 0 COUNT -5" "SCAN 0 MATCH" "SCAN 0 COUNT 9223372036854775807"
con "MULTI nesting" "MULTI" "MULTI" "SET a 1" "EXEC" "EXEC" "DISCARD"
con "WATCH in MULTI" "MULTI" "WATCH a" "EXEC"
con "MULTI with bad cmd" "MULTI" "NOPE" "SET a 1" "EXEC"
con "MULTI many queued" "MULTI" $(for i in $(seq 1 3000); do echo "INCR c"; done) "EXEC"
con "EXEC no MULTI" "EXEC" "DISCARD" "UNWATCH"
con "EVAL numkeys odd" "EVAL \"return 1\" -1" "EVAL \"return 1\" 5 a" "EVAL \"return 1\" 99999999999999999999" "EVAL \"return 1\" abc"
con "EVAL syntax error" "EVAL \"return (\" 0" "EVAL \"\" 0" "EVAL \"\\0\" 0"
con "EVAL bytecode" "EVAL \"$(printf '\033Lua')\" 0"
con "EVAL return types" "EVAL \"return {1,2,{3,{4,{5}}}}\" 0" "EVAL \"return {err='x'}\" 0" "EVAL \"return {ok=5}\" 0" "EVAL \"return 3.99\" 0" "EVAL \"return 0/0\" 0" "EVAL \"return 1/0\" 0"
con "EVAL deep table return" "EVAL \"local t={} local c=t for i=1,100000 do c[1]={} c=c[1] end return t\" 0"
con "EVAL huge table return" "EVAL \"local t={} for i=1,3000000 do t[i]=i end return t\" 0"
con "EVAL recursion" "EVAL \"local function f(n) return f(n+1)+1 end return f(1)\" 0"
con "EVAL tail recursion" "EVAL \"local function f(n) return f(n+1) end return f(1)\" 0"
con "EVAL coroutine loop" "EVAL \"local c=coroutine.wrap(function() while true do coroutine.yield() end end) while true do c() end\" 0"
con "EVAL coroutine nest" "EVAL \"local function g(n) return coroutine.wrap(function() return g(n+1)() end) end return g(1)()\" 0"
con "EVAL pcall loop" "EVAL \"while true do pcall(function() while true do end end) end\" 0"
con "EVAL pcall error obj" "EVAL \"return pcall(error, setmetatable({}, {__tostring=function() while true do end end}))\" 0"
con "EVAL error with table" "EVAL \"error({})\" 0" "EVAL \"error(nil)\" 0" "EVAL \"error(setmetatable({}, {__tostring=function() return 1 end}))\" 0"
con "EVAL metatable gc" "EVAL \"setmetatable({}, {__gc=function() while true do end end}) collectgarbage()\" 0"
con "EVAL __index loop" "EVAL \"local t=setmetatable({}, {}) getmetatable(t).__index=t return t.x\" 0"
con "EVAL __index chain" "EVAL \"local t={} for i=1,100000 do t=setmetatable({}, {__index=t}) end return t.x\" 0"
con "EVAL string.format" "EVAL \"return string.format('%099999d', 1)\" 0" "EVAL \"return string.format('%s', string.rep('x', 1000000))\" 0" "EVAL \"return string.format('%q', string.rep('\\\\0', 100000))\" 0"
con "EVAL format bad" "EVAL \"return string.format('%', 1)\" 0" "EVAL \"return string.format('%10.1000f', 1)\" 0" "EVAL \"return string.format('%d')\" 0"
con "EVAL gsub heavy" "EVAL \"local s=string.rep('a', 100000) for i=1,100 do s=s:gsub('a','aa') end return #s\" 0"
con "EVAL gsub fn" "EVAL \"return (string.rep('a',1000000):gsub('.', function(c) return c..c end))\" 0"
con "EVAL gmatch loop" "EVAL \"local n=0 for w in string.rep('ab ', 1000000):gmatch('%a+') do n=n+1 end return n\" 0"
con "EVAL find plain big" "EVAL \"return string.find(string.rep('a', 5000000), string.rep('a', 1000)..'b', 1, true)\" 0"
con "EVAL pattern balanced" "EVAL \"return string.find(string.rep('(', 100000), '%b()')\" 0"
con "EVAL pattern frontier" "EVAL \"return string.find('abc', '%f[%a]')\" 0"
con "EVAL bad pattern" "EVAL \"return string.find('a', '[')\" 0" "EVAL \"return string.find('a', '%')\" 0" "EVAL \"return string.find('a', '(()')\" 0" "EVAL \"return string.gsub('a', '(a)', '%9')\" 0"
con "EVAL captures 32+" "EVAL \"return string.find('a', string.rep('()', 40))\" 0"
con "EVAL string.rep neg" "EVAL \"return string.rep('x', -1)\" 0" "EVAL \"return string.rep('xy', 1e15)\" 0" "EVAL \"return string.rep('x', 0/0)\" 0"
con "EVAL concat loop" "EVAL \"local s='x' for i=1,40 do s=s..s end return #s\" 0"
con "EVAL table.concat big" "EVAL \"local t={} for i=1,2000000 do t[i]='abcdefgh' end return #table.concat(t)\" 0"
con "EVAL table.sort bad cmp" "EVAL \"local t={} for i=1,1000 do t[i]=i end table.sort(t, function(a,b) return true end) return 1\" 0"
con "EVAL table.sort loop cmp" "EVAL \"local t={} for i=1,100 do t[i]=i end table.sort(t, function(a,b) while true do end end) return 1\" 0"
con "EVAL unpack huge" "EVAL \"return unpack({}, 1, 1e8)\" 0" "EVAL \"return select('#', unpack({}, 1, 10000000))\" 0"
con "EVAL table.insert odd" "EVAL \"local t={} table.insert(t, 1e9, 1) return 1\" 0" "EVAL \"table.remove({}, -5) return 1\" 0"
con "EVAL tostring odd" "EVAL \"return tostring(1e308*10)\" 0" "EVAL \"return tonumber('0x' .. string.rep('f', 100000))\" 0"
con "EVAL math odd" "EVAL \"return math.floor(2^63)\" 0" "EVAL \"return math.fmod(1, 0)\" 0" "EVAL \"return math.random(0)\" 0" "EVAL \"return math.random(2^31, 2^40)\" 0"
con "EVAL loadstring" "EVAL \"return loadstring('return 1')()\" 0" "EVAL \"return loadstring(string.rep('(', 10000))\" 0" "EVAL \"return loadstring(string.rep('a=', 100000)..'1')\" 0"
con "EVAL deep nesting source" "EVAL \"return $(for i in $(seq 1 5000); do printf '('; done)1$(for i in $(seq 1 5000); do printf ')'; done)\" 0"
con "EVAL deep table ctor" "EVAL \"return $(for i in $(seq 1 5000); do printf '{'; done)$(for i in $(seq 1 5000); do printf '}'; done)\" 0"
con "EVAL many locals" "EVAL \"$(for i in $(seq 1 300); do printf 'local a%d=1 ' $i; done)return 1\" 0"
con "EVAL many constants" "EVAL \"local t={$(seq -s , 1 100000)} return #t\" 0"
con "EVAL globals" "EVAL \"x=1\" 0" "EVAL \"return _G\" 0" "EVAL \"return getfenv\" 0" "EVAL \"rawset(_G, 'x', 1)\" 0" "EVAL \"setmetatable(_G, nil)\" 0" "EVAL \"return 1\" 0"
con "EVAL io os debug" "EVAL \"return io.open('/etc/passwd')\" 0" "EVAL \"return os.execute('true')\" 0" "EVAL \"return debug.sethook\" 0" "EVAL \"return require('os')\" 0" "EVAL \"return dofile('/etc/passwd')\" 0"
con "EVAL string.dump" "EVAL \"return string.dump(function() end)\" 0"
con "EVAL redis.call bad" "EVAL \"return redis.call()\" 0" "EVAL \"return redis.call({})\" 0" "EVAL \"return redis.call('EVAL', 'return 1', 0)\" 0" "EVAL \"return redis.call('MULTI')\" 0" "EVAL \"return redis.call('SCRIPT','FLUSH')\" 0"
con "EVAL redis.call nil arg" "EVAL \"return redis.call('SET', 'a', nil)\" 0" "EVAL \"return redis.call('SET', 'a', {})\" 0" "EVAL \"return redis.call('SET', 'a', 1.5)\" 0"
con "EVAL redis.pcall loop" "EVAL \"while true do redis.pcall('NOPE') end\" 0"
con "EVAL redis helpers" "EVAL \"return redis.error_reply(string.rep('x', 1000000))\" 0" "EVAL \"return redis.status_reply(nil)\" 0" "EVAL \"return redis.sha1hex(string.rep('x', 10000000))\" 0" "EVAL \"return redis.log(redis.LOG_WARNING, 'x')\" 0"
con "EVAL error reply newline" "EVAL \"return redis.error_reply('a\\r\\nb')\" 0" "EVAL \"return {err='x\\r\\n+OK'}\" 0"
con "EVAL cjson struct" "EVAL \"return cjson.encode(setmetatable({}, {}))\" 0" "EVAL \"return cjson.decode(string.rep('[', 100000))\" 0" "EVAL \"local t={} t[1]=t return cjson.encode(t)\" 0" "EVAL \"return struct.pack('i', 1)\" 0" "EVAL \"return cmsgpack.pack({})\" 0"
con "EVAL KEYS ARGV abuse" "EVAL \"KEYS[1]=nil return #KEYS\" 1 a" "EVAL \"ARGV=nil return 1\" 0" "EVAL \"return KEYS[1e10]\" 0"
con "EVALSHA odd" "EVALSHA 0000 0" "EVALSHA $(head -c 40 /dev/zero | tr '\0' f) 0" "EVALSHA $(head -c 100000 /dev/zero | tr '\0' f) 0"
con "SCRIPT odd" "SCRIPT" "SCRIPT FOO" "SCRIPT EXISTS" "SCRIPT EXISTS $(seq -s ' ' 1 20000)" "SCRIPT FLUSH ASYNC" "SCRIPT KILL"
con "SCRIPT LOAD big" "SCRIPT LOAD \"return '$(head -c 500000 /dev/zero | tr '\0' z)'\""
con "FUNCTION / unsupported" "FUNCTION LOAD x" "FCALL f 0" "DEBUG SLEEP 100" "SHUTDOWN" "FLUSHALL" "CONFIG SET maxmemory 1" "CLIENT KILL ID 1"
con "OBJECT DEBUG" "SET a 1" "OBJECT ENCODING a" "OBJECT FREQ a" "DEBUG OBJECT a" "DEBUG JMAP"
con "BLPOP in console" "BLPOP l 0" "BLPOP l -1" "BLPOP l 99999999999999" "BLPOP l 0.0001" "BLMOVE a b LEFT RIGHT 0"
con "SUBSCRIBE console" "SUBSCRIBE c" "PUBLISH c $(head -c 100000 /dev/zero | tr '\0' m)" "UNSUBSCRIBE" "PSUBSCRIBE [" "PING"
con "WAIT and replication" "WAIT 1 0" "WAIT -1 -1" "WAIT 99999999999 99999999999" "REPLICAOF localhost 1" "FAILOVER"
con ".dot commands" ".help" ".advance" ".advance -1" ".advance abc" ".advance 1e30" ".advance 18446744073709551616" ".nope" "." ".advance 1 2"
con ".advance repeated" $(for i in $(seq 1 100); do echo ".advance 92233720368547758"; done) "SET a 1 PX 10" "GET a"
con "RENAME odd" "SET a 1" "RENAME a a" "RENAME nope b" "RENAMENX a a" "COPY a a" "MOVE a 1" "SELECT 1" "SELECT -1" "SWAPDB 0 1"
con "TYPE/EXISTS many" "EXISTS $(seq -s ' ' 1 100000)" "MGET $(seq -s ' ' 1 100000)"
con "MSET odd" "MSET a" "MSET a 1 b" "MSETNX" "MSET $(seq -s ' ' 1 200000)"
con "GETEX/GETDEL" "SET a 1" "GETEX a PX -1" "GETEX a EXAT 9223372036854775807" "GETEX a PERSIST PX 1" "GETDEL a" "GETDEL a"
con "OOM fill" "EVAL \"for i=1,100000 do redis.call('SET', 'k'..i, string.rep('x', 3000)) end\" 0" "DBSIZE" "SET z 1" "FLUSHDB" "SET z 1"
con "OOM multi" "MULTI" $(for i in $(seq 1 40); do echo "SETRANGE k$i 10000000 x"; done) "EXEC" "INFO memory"
con "INFO odd" "INFO" "INFO nope" "INFO $(head -c 10000 /dev/zero | tr '\0' a)" "DBSIZE x" "TIME" "ECHO" "PING a b"
con "HELLO odd" "HELLO 4" "HELLO 3" "GET a" "HELLO 2 AUTH u p" "HELLO abc" "AUTH" "AUTH a b c"
con "RESET and QUIT" "MULTI" "RESET" "QUIT" "GET a"
con "HSCAN/ZSET" "HSET h a 1" "HSCAN h 0 COUNT -1" "HSCAN h abc" "ZADD z 1 a" "SADD s a" "SSCAN s 0"
con "SORT/OBJECT" "RPUSH l 3 1 2" "SORT l" "SORT l BY nosort LIMIT -1 -1" "SORT l LIMIT 0 9223372036854775807"
con "binary key glob" "SET $(printf '\001\002\377') v" "KEYS *$(printf '\377')" "KEYS ?"
con "CRLF inside line" "$(printf 'SET a 1\r')" "$(printf 'GET a\r\r\r')"
con "only quotes" '""' "''" '"" ""'
con "EVAL no script" "EVAL" "EVAL 0" "EVALSHA" "EVAL_RO \"return redis.call('SET','a',1)\" 0"
con "invalid UTF-8 bytes" "$(printf 'SET \xc3\x28 \xff\xfe')" "$(printf 'KEYS \xf0\x9f')"
head -c 200000 /dev/urandom >"$W/random.bin"
con_raw "random bytes on stdin" "$W/random.bin"
tr -dc 'A-Za-z "\\*[]$\n' </dev/urandom 2>/dev/null | head -c 100000 >"$W/random.txt"
con_raw "random ASCII on stdin" "$W/random.txt"

# --- Scenario words and fault plans (replay) -------------------------------------
for s in \
  '' ' ' 'nope' 'set-nx-px =' 'set-nx-px seed=' 'set-nx-px seed=-1' 'set-nx-px seed=18446744073709551616' \
  'set-nx-px seed=0x10' 'set-nx-px clients=0' 'set-nx-px clients=27' 'set-nx-px clients=1e3' \
  'set-nx-px iterations=1001' 'set-nx-px iterations=-1' 'set-nx-px nested=11' 'set-nx-px masters=0' \
  'redlock masters=10' 'redlock masters=9 clients=26 iterations=5' 'set-nx-px horizon=0s' 'set-nx-px horizon=601s' \
  'set-nx-px horizon=-5s' 'set-nx-px horizon=1' 'set-nx-px horizon=1ns' 'set-nx-px horizon=1.5.5s' \
  'set-nx-px horizon=99999999999999999999ms' 'set-nx-px horizon=1e9s' 'set-nx-px horizon=nan' 'set-nx-px horizon=infs' \
  'set-nx-px work=600s,600s' 'set-nx-px work=1s' 'set-nx-px work=2s,1s' 'set-nx-px think=-1ms,1ms' \
  'set-nx-px lag=601s' 'set-nx-px spread=9999999999s' 'set-nx-px latency=1ms,600s' 'set-nx-px spikes=1' \
  'set-nx-px lease=0ms' 'set-nx-px lease=86401s' 'set-nx-px retry=0s' 'set-nx-px call-timeout=1ms' \
  'set-nx-px clock=A:+86400s' 'set-nx-px clock=A:+86401s' 'set-nx-px clock=Z:1s' 'set-nx-px clock=A:1s clock=A:2s' \
  'set-nx-px drift=A:1000001' 'set-nx-px drift=A:-1000000' 'set-nx-px drift=A:-999999 horizon=600s' \
  'set-nx-px slow=A:0:600s' 'set-nx-px slow=A:99999:1s' 'set-nx-px slow=A:-1:1s' 'set-nx-px slow=' \
  'set-nx-px call=A:0:crash' 'set-nx-px call=A:0:pause:86400s' 'set-nx-px call=A:4294967296:crash' 'set-nx-px call=A:0:explode' \
  'set-nx-px faults=[' 'set-nx-px faults=]' 'set-nx-px faults=[]' 'set-nx-px faults=[[]]' 'set-nx-px faults=[,,,]' \
  'set-nx-px faults=[crash A @-1ms]' 'set-nx-px faults=[crash A @601s]' 'set-nx-px faults=[crash Q @1ms]' \
  'set-nx-px faults=[crash redis @1ms, restart redis @1ms, crash redis @1ms]' \
  'set-nx-px faults=[pause A @1ms for 86401s]' 'set-nx-px faults=[pause A @1ms for -1s]' \
  'set-nx-px faults=[cut A redis @1ms for 86400s]' 'set-nx-px faults=[jump redis @1ms by +86400s]' \
  'set-nx-px faults=[jump redis @1ms by -9223372036854775808ms]' 'set-nx-px faults=[jump redis @1ms by 1e300s]' \
  'set-nx-px faults=[jump A @0ms by +86400s, jump A @0ms by +86400s, jump A @0ms by +86400s]' \
  'set-nx-px faults=[explode A @1ms]' 'set-nx-px faults=[pause A @1ms for 1ms' 'set-nx-px faults=[pause A @1ms for 1ms]]' \
  'set-nx-px clients=26 iterations=1000 horizon=600s' 'watchdog clients=26 iterations=1000 work=0s,0s think=0s,0s' \
  'reentrant nested=10 clients=26 iterations=1000' 'fair clients=26 iterations=1000' \
  'set-nx-px persistent stop-when-lost no-resource-writes' 'set-nx-px persistent=1' 'SET-NX-PX' \
  "set-nx-px $(printf 'seed=\xff\xfe')" "set-nx-px key=$(printf 'a\nb')" "set-nx-px key=" \
  ; do
  cli "replay '$(printf '%s' "$s" | cut -c1-60)'" replay "$s"
done
for i in $(seq 1 1000); do printf 'pause A @%dms for 1ms, ' "$i"; done >"$W/plan"
cli "replay 1000-fault plan" replay "set-nx-px faults=[$(cat "$W/plan")pause A @1s for 1ms]"
cli "replay 1001-fault plan" replay "set-nx-px faults=[$(cat "$W/plan")pause A @1s for 1ms, pause A @2s for 1ms]"
for i in $(seq 1 1000); do printf 'jump redis @%dms by +86400s, ' "$i"; done >"$W/jumps"
cli "replay 1000 max jumps" replay "set-nx-px faults=[$(cat "$W/jumps")jump redis @1s by +86400s]"

# --- Scenario and regression files -----------------------------------------------
printf '' >"$W/empty.txt"
cli "replay empty file" replay "$W/empty.txt"
printf '# only a comment\n' >"$W/comment.txt"
cli "replay comment-only file" replay "$W/comment.txt"
cli "replay --line 0" replay "$W/bom.txt" --line 0
cli "replay --line past end" replay "$W/bom.txt" --line 99999999
cli "replay --line huge" replay "$W/bom.txt" --line 99999999999999999999
cli "replay a directory" replay "$W"
cli "replay /dev/zero" replay /dev/zero
cli "replay /dev/stdin" replay /dev/stdin
cli "replay a fifo" replay "$W/fifo"
head -c 17000000 /dev/zero | tr '\0' '#' >"$W/big.txt"
cli "replay 17MB file" replay "$W/big.txt"
for i in $(seq 1 20000); do echo 'set-nx-px clients=1 iterations=1'; done >"$W/many.txt"
cli "replay 20k-line file, one line" replay "$W/many.txt" --line 20000
printf 'set-nx-px clients=1 iterations=1\0seed=3\n' >"$W/nul.txt"
cli "replay NUL in file" replay "$W/nul.txt"
printf 'set-nx-px clients=1 iterations=1\r\n' >"$W/crlf.txt"
cli "replay CRLF file" replay "$W/crlf.txt"
head -c 100000 /dev/urandom >"$W/rand.txt"
cli "replay random bytes file" replay "$W/rand.txt"
cli "replay missing file" replay "$W/does/not/exist.txt"
ln -sf /dev/zero "$W/zero-link"
cli "replay symlink to /dev/zero" replay "$W/zero-link"
cli "tests/regressions replays" replay tests/regressions/catalogue.txt --line 3

# --- Lua variant files ---------------------------------------------------------------
variant "empty file" ''
variant "syntax error" 'function acquire( end'
variant "no release" 'function acquire() return true end'
variant "acquire returns number" 'function acquire() return 1 end function release() return true end'
variant "error at top level" 'error("boom") function acquire() return true end function release() return true end'
variant "top-level loop" 'while true do end'
variant "top-level memory" 'local t={} while true do t[#t+1]=string.rep("x", 1000) end'
variant "acquire memory" 'function acquire() local t={} while true do t[#t+1]={} end end function release() return true end'
variant "acquire rep huge" 'function acquire() return #string.rep("x", 2^31) > 0 end function release() return true end'
variant "sleep forever" 'function acquire() sleep(1e300) return true end function release() return true end'
variant "sleep negative" 'function acquire() sleep(-1) sleep(0/0) return true end function release() return true end'
variant "sleep loop" 'function acquire() while true do sleep(0) end end function release() return true end'
variant "spawn bomb" 'function acquire() for i=1,100000 do spawn(function() sleep(1) end) end return true end function release() return true end'
variant "spawn recursive" 'local function f() spawn(f) spawn(f) end function acquire() f() return true end function release() return true end'
variant "call huge arg" 'function acquire() call("SET", "k", string.rep("x", 7000000)) return true end function release() return true end'
variant "call many args" 'function acquire() local t={} for i=1,100000 do t[i]=i end call("DEL", unpack(t)) return true end function release() return true end'
variant "call bad types" 'function acquire() call({}, function() end) return true end function release() return true end'
variant "call_on bad server" 'function acquire() call_on(99, "PING") call_on(-1, "PING") return true end function release() return true end'
variant "call_blocking odd" 'function acquire() call_blocking(-1, "BLPOP", "l", "0") call_blocking(1e300, "BLPOP", "l", "1") return true end function release() return true end'
variant "next_message no sub" 'function acquire() next_message(1e300) return true end function release() return true end'
variant "coroutine call loop" 'function acquire() local c = coroutine.wrap(function() while true do call("PING") end end) c() return true end function release() return true end'
variant "pcall budget" 'function acquire() while true do pcall(function() while true do end end) end end function release() return true end'
variant "params odd" 'params = { lease = -1, retry = "abc", nope = 1 } function acquire() return true end function release() return true end'
variant "params huge" 'params = { lease = 1e300 } function acquire() return true end function release() return true end'
variant "name odd" 'name = "set-nx-px" function acquire() return true end function release() return true end'
variant "name bad chars" 'name = "a b/\n" function acquire() return true end function release() return true end'
variant "fence odd" 'function acquire() return true end function release() return true end function fence() return 2^63 end'
variant "fence string" 'function acquire() return true end function release() return true end function fence() return "x" end'
variant "still_held calls" 'function acquire() return true end function release() return true end function still_held() return call("PING") end'
variant "math.randomseed" 'function acquire() math.randomseed(1) return true end function release() return true end'
variant "token loop" 'function acquire() local s = "" for i=1,100000 do s = s .. token() end return true end function release() return true end'
variant "log huge" 'function acquire() for i=1,1000 do log(string.rep("y", 100000)) end return true end function release() return true end'
variant "log control bytes" 'function acquire() log("\27[2J\0\7") return true end function release() return true end'
printf '\033Lua\x51\x00' >"$W/bytecode.lua"
cli "variant bytecode" run v --variant "$W/bytecode.lua"
cli "variant directory" run v --variant "$W"
cli "variant fifo" run v --variant "$W/fifo"
head -c 2000000 /dev/zero | tr '\0' ' ' >"$W/bigvar.lua"
cli "variant 2MB" run v --variant "$W/bigvar.lua"
cli "variant twice same file" run deep --variant "$W/deep.lua" --variant "$W/deep.lua"

# --- Command-line flags of every subcommand ---------------------------------------
R=(replay 'set-nx-px clients=1 iterations=1')
cli "no args" 
cli "unknown subcommand" frobnicate
cli "--version" --version
cli "--help" --help
cli "list extra" list extra args
cli "tour extra" tour --nope
cli "run unknown algo" run nope
cli "run --clients 0" run set-nx-px --clients 0
cli "run --clients 27" run set-nx-px --clients 27
cli "run --clients -1" run set-nx-px --clients -1
cli "run --iterations 1001" run set-nx-px --iterations 1001
cli "run --nested 99" run reentrant --nested 99
cli "run --horizon 0s" run set-nx-px --horizon 0s
cli "run --horizon 9e99s" run set-nx-px --horizon 9e99s
cli "run --work-min > max" run set-nx-px --work-min 2s --work-max 1s
cli "run --think-max huge" run set-nx-px --think-max 86401s
cli "run --start-spread neg" run set-nx-px --start-spread -1s
cli "run --lease 0" run set-nx-px --lease 0
cli "run --lease 1ns" run set-nx-px --lease 1ns
cli "run --lease 86400s" run set-nx-px --lease 86400s --iterations 1 --clients 1
cli "run --lease abc" run set-nx-px --lease abc
cli "run --retry 0s" run set-nx-px --retry 0s
cli "run --retry-jitter huge" run set-nx-px --retry-jitter 86401s
cli "run --wait-limit 86400s" run set-nx-px --wait-limit 86400s --lease 86400s
cli "run --call-timeout 0" run set-nx-px --call-timeout 0ms
cli "run --renew-interval 1ms" run watchdog --renew-interval 1ms --horizon 600s
cli "run --explicit-lease neg" run watchdog --explicit-lease -1s
cli "run --release-if-unexpired x" run getset --release-if-unexpired x
cli "run --key empty" run set-nx-px --key ''
cli "run --key huge" run set-nx-px --key "$(head -c 100000 /dev/zero | tr '\0' k)"
cli "run --slow-work bad" run set-nx-px --slow-work A:0 --slow-work Z:0:1s
cli "run --slow-work huge" run set-nx-px --slow-work A:0:99999999999s
cli "run --call-fault bad" run set-nx-px --call-fault A:0:pause --call-fault A:x:crash
cli "run --clock-offset huge" run set-nx-px --clock-offset A:+9223372036854775807ms
cli "run --drift huge" run set-nx-px --drift A:99999999999999999999
cli "run --drift nan" run set-nx-px --drift A:nan
cli "run --faults empty" run set-nx-px --faults ''
cli "run --faults garbage" run set-nx-px --faults '@@@[[['
cli "run --width 39" run set-nx-px --width 39
cli "run --width 400" run set-nx-px --width 400
cli "run --colour x" run set-nx-px --colour x
cli "run --seed -1" run set-nx-px --seed -1
cli "run --seed max" run set-nx-px --seed 18446744073709551615
cli "run --seed 1e5" run set-nx-px --seed 1e5
cli "run repeated flag" run set-nx-px --seed 1 --seed 2
cli "run max everything" run fair --clients 26 --iterations 1000 --horizon 600s --work-min 0s --work-max 0s --think-max 0s
cli "check --runs 0" check set-nx-px --runs 0
cli "check --runs 100000000 --time 1s" check set-nx-px --runs 100000000 --time 1s
cli "check --time 0s" check set-nx-px --time 0s
cli "check --time -1s" check set-nx-px --time -1s
cli "check --time huge" check set-nx-px --time 99999999999999s --runs 10
cli "check --jobs 256" check set-nx-px --jobs 256 --runs 300
cli "check --jobs 0" check set-nx-px --jobs 0
cli "check --property nope" check set-nx-px --property nope
cli "check --faults nope" check set-nx-px --faults nope
cli "check --faults all,all" check set-nx-px --faults all,all --runs 20
cli "check --assume nope" check set-nx-px --assume nope
cli "check --assume pause<=-1ms" check set-nx-px --assume 'pause<=-1ms'
cli "check --assume pause<=huge" check set-nx-px --assume 'pause<=99999999999999s' --runs 20
cli "check --clients-max < clients" check set-nx-px --clients 5 --clients-max 2
cli "check --masters 9 --replica" check redlock --masters 9 --replica --runs 10
cli "check --nested 8 non-reentrant" check set-nx-px --nested 8 --runs 10
cli "check --shard 0/0" check set-nx-px --shard 0/0
cli "check --shard 5/5" check set-nx-px --shard 5/5
cli "check --shard -1/2" check set-nx-px --shard -1/2
cli "check --shard 1/4294967296" check set-nx-px --shard 1/4294967296
cli "check --shard 0/100000000" check set-nx-px --shard 0/100000000 --runs 10
cli "check --shard junk" check set-nx-px --shard '1/2/3'
cli "check --json --first" check set-nx-px --json --first --runs 200
cli "check --variant missing" check v --variant /nonexistent.lua
cli "catalogue --only nope" catalogue --only F99
cli "catalogue --only empty" catalogue --only ''
cli "catalogue --only ,,," catalogue --only ',,,'
cli "catalogue --budget 1" catalogue --only F01 --budget 1 --no-fix
cli "catalogue --generic 0" catalogue --only F01 --generic 0 --budget 10
cli "merge nothing" merge
cli "merge missing" merge /nonexistent.json
printf '{' >"$W/bad.json"
cli "merge bad json" merge "$W/bad.json"
printf '{"algorithm":"set-nx-px","seed":1,"runs":-5}' >"$W/neg.json"
cli "merge negative runs" merge "$W/neg.json" "$W/neg.json"
printf '%s' "$(for i in $(seq 1 20000); do printf '['; done)" >"$W/deep.json"
cli "merge deep json" merge "$W/deep.json"
cli "merge /dev/zero" merge /dev/zero
cli "merge same twice" merge "$W/neg.json" "$W/neg.json"
printf '{"algorithm":"set-nx-px","seed":18446744073709551615,"runs":18446744073709551615,"failures":[]}' >"$W/max.json"
cli "merge max numbers" merge "$W/max.json" "$W/max.json"
cli "redis with args" redis extra
cli "replay --real no server" "${R[@]}" --real --redis-server /nonexistent
cli "replay --real --time-scale 0" "${R[@]}" --real --time-scale 0
cli "replay --real --time-scale nan" "${R[@]}" --real --time-scale nan
cli "replay --real --attempts 0" "${R[@]}" --real --attempts 0 --redis-server /bin/false
cli "serve --port 70000" serve --port 70000
cli "serve --maxclients 0" serve --maxclients 0
cli "serve --time x" serve --time x
cli "serve --bind bad" serve --bind 999.1.1.1 --port 0
cli "serve --unix in missing dir" serve --port -1 --unix /nonexistent/dir/sock
cli "serve --unix too long" serve --port -1 --unix "/tmp/$(head -c 200 /dev/zero | tr '\0' s)"

# --- Output paths ------------------------------------------------------------------
cli "--svg directory" "${R[@]}" --svg "$W"
cli "--svg /dev/full" "${R[@]}" --svg /dev/full
cli "--trace-json /dev/full" "${R[@]}" --trace-json /dev/full
cli "--svg /dev/null" "${R[@]}" --svg /dev/null
cli "--svg missing dir" "${R[@]}" --svg "$W/nope/x.svg"
cli "--svg empty" "${R[@]}" --svg ''
cli "--svg equals input" replay "$W/crlf.txt" --svg "$W/crlf.txt"
cli "--save directory" check set-nx-px --runs 200 --save "$W"
cli "--save /dev/null" check set-nx-px --runs 200 --save /dev/null
cli "--save = --svg" check set-nx-px --runs 200 --save "$W/s.txt" --svg "$W/s.txt"
cli "--save = --trace-json via ./" check set-nx-px --runs 200 --save "$W/s2.txt" --trace-json "$W/./s2.txt"
mkdir -p "$W/ro" && chmod 555 "$W/ro"
cli "--svg read-only dir" "${R[@]}" --svg "$W/ro/x.svg"
ln -sf "$W/fifo" "$W/fifo-link"
cli "--svg symlink to fifo" "${R[@]}" --svg "$W/fifo-link"
cli "--trace-json /dev/stdout" "${R[@]}" --trace-json /dev/stdout

# --- --shard auto environments --------------------------------------------------------
shard() {
  local name=$1
  shift
  limited env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX -u PARALLEL_SEQ -u LOCKSIM_SHARD_INDEX \
    -u LOCKSIM_SHARD_COUNT -u SLURM_ARRAY_TASK_COUNT "$@" "$LOCKSIM" check set-nx-px --runs 20 --shard auto \
    </dev/null >"$W/log" 2>&1
  judge "shard: $name" $? "$W/log"
}
shard "none"
shard "slurm negative" SLURM_ARRAY_TASK_ID=-1 SLURM_ARRAY_TASK_COUNT=2
shard "slurm huge" SLURM_ARRAY_TASK_ID=99999999999999999999 SLURM_ARRAY_TASK_COUNT=2
shard "slurm count 0" SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=0
shard "slurm text" SLURM_ARRAY_TASK_ID=abc SLURM_ARRAY_TASK_COUNT=2
shard "slurm empty" SLURM_ARRAY_TASK_ID= SLURM_ARRAY_TASK_COUNT=
shard "k8s no count" JOB_COMPLETION_INDEX=3
shard "k8s index >= count" JOB_COMPLETION_INDEX=3 LOCKSIM_SHARD_COUNT=3
shard "parallel seq 0" PARALLEL_SEQ=0 LOCKSIM_SHARD_COUNT=2
shard "parallel seq spaces" PARALLEL_SEQ=' 1 ' LOCKSIM_SHARD_COUNT=2
shard "index with newline" LOCKSIM_SHARD_INDEX=$'1\n' LOCKSIM_SHARD_COUNT=2
shard "index 0x1" LOCKSIM_SHARD_INDEX=0x1 LOCKSIM_SHARD_COUNT=2
shard "count huge" LOCKSIM_SHARD_INDEX=0 LOCKSIM_SHARD_COUNT=4294967296
shard "ok" LOCKSIM_SHARD_INDEX=1 LOCKSIM_SHARD_COUNT=2

# --- locksim serve ------------------------------------------------------------------------
rm -f "$W/sock"
# Not `limited`: the server lives for all the serve cases (at most 60 s); its own time is not judged.
/usr/bin/time -f '%e %M' -o "$W/time" timeout -s KILL 60 "${AS_LIMIT[@]}" \
  "$LOCKSIM" serve --port -1 --unix "$W/sock" --maxclients 200 </dev/null >"$W/serve.log" 2>&1 &
SERVE_PID=$!
for _ in $(seq 1 50); do [[ -S $W/sock ]] && break; sleep 0.1; done
python3 tests/hostile/campaign_serve.py "$W/sock" >"$W/serve-cases.log" 2>&1
serve_status=$?
grep BAD "$W/serve-cases.log"
n=$(grep -c '^case .* \(ok\|BAD\)' "$W/serve-cases.log")
nbad=$(grep -c '^case .* BAD' "$W/serve-cases.log")
tried=$((tried + n))
bad=$((bad + nbad))
((serve_status != 0 && nbad == 0)) && bad=$((bad + 1)) && echo "BAD  serve cases: $(tail -n 3 "$W/serve-cases.log")"
timeout_pid=$(pgrep -P $SERVE_PID)
kill -TERM "$(pgrep -P "$timeout_pid")" 2>/dev/null
wait $SERVE_PID
LIMIT_S=999 judge "serve: the server itself, after the serve cases" $? "$W/serve.log" "0"
