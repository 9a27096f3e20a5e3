approve(p:string)
revoke(p:string)
pay(p:string, amount:int)
