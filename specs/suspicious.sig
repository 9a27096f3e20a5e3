login(user:string, ip:string)
fail(user:string, ip:string)
