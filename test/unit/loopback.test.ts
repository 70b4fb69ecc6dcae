import { describe, expect, it } from 'vitest';
import { isLoopback } from '../../core/runtime/server';

describe('isLoopback', () => {
  it('knows the loopback range, not only 127.0.0.1: a team server on 127.0.0.2 is not on the network', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', '127.255.255.254', 'localhost', '::1', '[::1]', '::ffff:127.0.0.9', '0:0:0:0:0:0:0:1']) expect(isLoopback(host), host).toBe(true);
    for (const host of ['0.0.0.0', '10.0.0.1', '128.0.0.1', '::', '::ffff:10.0.0.1', 'example.com', '127.example.com', '1270.0.0.1']) expect(isLoopback(host), host).toBe(false);
  });
});
